"""Make text we did not write safe to post on GitHub.

Commit titles, file names and branch names end up in issue bodies and comments. Copied
verbatim they would ping people (``@user``), put "mentioned this" back-references on
every pull request they name (``#123``, ``owner/repo#123``, ``GH-123``, issue URLs),
close issues (``fixes #123``), and could forge the hidden HTML-comment markers that
identify our own issues. Everything here keeps the text readable for a person but
inert for GitHub: a zero-width joiner (what Dependabot does for mentions) breaks the
auto-linkers, ``<`` and ``>`` become entities so no HTML (and no ``<!--``) survives, and
links to github.com go through ``redirect.github.com``, which GitHub provides so that
links do not create back-references.
"""

from __future__ import annotations

import re

__all__ = [
    "BODY_LIMIT",
    "ZWJ",
    "fit_body",
    "github_link",
    "neutralise",
    "neutralise_cell",
]

#: GitHub refuses issue and comment bodies over 65,536 characters (422 "Body is too long").
BODY_LIMIT = 65_536

#: U+200D ZERO WIDTH JOINER: invisible, and no GitHub auto-linker matches across it.
ZWJ = "\u200d"

# @user, @org/team: GitHub user names are alphanumerics and single hyphens. The look-behind
# leaves e-mail addresses (user@host) alone; GitHub does not treat them as mentions either.
_MENTION = re.compile(r"(?<![A-Za-z0-9])@(?=[A-Za-z0-9])")
# #123, owner/repo#123, GH-123: break between the marker and the number.
_ISSUE_REF = re.compile(r"#(?=\d)")
_GH_REF = re.compile(r"\b(GH)-(?=\d)", re.IGNORECASE)
# Issue, pull request and discussion URLs on github.com create back-references too.
_GITHUB_URL = re.compile(r"https?://(?:www\.)?github\.com/", re.IGNORECASE)


def neutralise(text: str) -> str:
    """Return ``text`` with mentions, references, HTML and markers made inert.

    The result renders as (nearly) the same visible text in GitHub Markdown.
    """
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    text = _GITHUB_URL.sub("https://redirect.github.com/", text)
    text = _MENTION.sub("@" + ZWJ, text)
    text = _ISSUE_REF.sub("#" + ZWJ, text)
    return _GH_REF.sub(lambda m: m.group(1) + ZWJ + "-", text)


def neutralise_cell(text: str, max_chars: int | None = None) -> str:
    """Neutralise ``text`` for one Markdown table cell or list item: one line, no ``|``."""
    line = " ".join(text.split())
    if max_chars is not None and len(line) > max_chars:
        line = line[: max(max_chars - 1, 0)].rstrip() + "…"
    return neutralise(line).replace("|", "\\|")


def github_link(url: str) -> str:
    """A link to a github.com page that does not put a back-reference on it."""
    return _GITHUB_URL.sub("https://redirect.github.com/", url)


def fit_body(text: str, limit: int = BODY_LIMIT) -> str:
    """Cut ``text`` to at most ``limit`` characters, saying how much was left out.

    Callers that can shorten their content more gracefully (fewer table rows) should do
    so first; this is the last guard before GitHub's 422.
    """
    if len(text) <= limit:
        return text

    def note(left_out: int) -> str:
        return f"\n\n… {left_out:,} characters left out (GitHub limits a body to {limit:,}).\n"

    # Reserve room for the longest note this text can need, then prefer a line break.
    cut = limit - len(note(len(text)))
    if cut <= 0:
        raise ValueError(f"limit {limit} is too small to hold the truncation note")
    head = text[:cut]
    if "\n" in head[-200:]:
        head = head[: head.rindex("\n")]
    return head + note(len(text) - len(head))
