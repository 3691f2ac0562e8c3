"""The acknowledgement footer that accepts an intended size increase on a pull request.

Chromium's binary-size trybot accepts a CL that carries a ``Binary-Size: <reason>`` footer; we
read the same kind of line, ``Wheel-Size: <reason>``, from the pull request's description.
"""

from __future__ import annotations

import re

__all__ = ["DEFAULT_FOOTER", "acknowledgement"]

DEFAULT_FOOTER = "Wheel-Size"


def acknowledgement(body: str | None, footer: str = DEFAULT_FOOTER) -> str | None:
    """The reason given on a ``<footer>: <reason>`` line of ``body``, or None.

    The line must start the line (leading spaces allowed) and give a non-empty reason, so a
    sentence that merely mentions the footer does not acknowledge anything. The last such line
    wins, as with git trailers.
    """
    if not body:
        return None
    pattern = re.compile(rf"^[ \t]*{re.escape(footer)}[ \t]*:[ \t]*(\S.*?)[ \t]*$", re.I | re.M)
    found = pattern.findall(body.replace("\r\n", "\n"))
    return found[-1][:300] if found else None
