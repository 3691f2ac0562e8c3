"""The hidden HTML comments the bot writes into GitHub text, in one place: prefix, render, parse.

One prefix, :data:`PREFIX` (``<!-- wheel-size-action:``), for everything the bot writes:
regression issues and their lifecycle comments (event, cause, parts, candidates, update,
duplicate-of: :mod:`wheel_size.regressions.issues`), sticky pull-request comments
(:mod:`wheel_size.sticky`) and silence issues (:mod:`wheel_size.regressions.issues.silence`).
The payloads never collide: a regression payload is ``name=value``, a sticky key a bare
word, a silence payload starts ``silence``.

Releases before this one wrote sticky comments and silence issues with
:data:`LEGACY_PREFIX` (``<!-- wheel-size:``). Those are in users' repositories, so they are
still *read* (:func:`spellings`): the bot finds its old comment or issue and edits or
follows it, writing the one prefix from then on; it never writes the old one.

Which of them a reader trusts is decided elsewhere (only the bot's own text counts:
:mod:`wheel_size.regressions.issues.authorship`); this module only spells them.
"""

from __future__ import annotations

__all__ = [
    "END",
    "LEGACY_PREFIX",
    "PREFIX",
    "comment_marker",
    "payload",
    "regression_marker",
    "spellings",
]

PREFIX = "<!-- wheel-size-action:"
LEGACY_PREFIX = "<!-- wheel-size:"  # read, never written (sticky comments, silence issues)
END = " -->"


def regression_marker(payload: str) -> str:
    """``<!-- wheel-size-action:{payload} -->``: a marker in a regression issue or comment."""
    return f"{PREFIX}{payload}{END}"


def comment_marker(payload: str) -> str:
    """``<!-- wheel-size-action:{payload} -->``: a sticky comment's or a silence issue's
    marker (the same prefix as every other marker)."""
    return f"{PREFIX}{payload}{END}"


def spellings(marker: str) -> tuple[str, str]:
    """``marker`` as written now and as releases before the one prefix wrote it: what a
    reader looking for the bot's own comment or issue must accept."""
    if not marker.startswith(PREFIX):
        raise ValueError(f"not a wheel-size marker: {marker!r}")
    return marker, LEGACY_PREFIX + marker[len(PREFIX) :]


def payload(line: str, prefix: str = PREFIX) -> str | None:
    """What a marker line carries between ``prefix`` and the closing ``-->`` (surrounding
    whitespace ignored); ``None`` for any other line."""
    text = line.strip()
    if not (text.startswith(prefix) and text.endswith(END)):
        return None
    return text[len(prefix) : -len(END)]
