"""The acknowledgement footer that accepts an intended size increase on a pull request.

Chromium's binary-size trybot accepts a CL that carries a ``Binary-Size: <reason>`` footer; we
read the same kind of line, ``Wheel-Size: <reason>``, from the pull request's description.

Only a line a reader of the rendered description sees counts: the description is parsed as
CommonMark (markdown-it-py, the parser GitHub's own renderer follows), and a footer inside an
HTML comment, a fenced or indented code block, a block quote, a list, a heading or a
``<details>`` element is not one. A pull-request template can hide text in all of these, and
a hidden ``Wheel-Size:`` line would acknowledge every pull request opened from it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from markdown_it.token import Token

__all__ = ["DEFAULT_FOOTER", "acknowledgement", "visible_lines"]

DEFAULT_FOOTER = "Wheel-Size"
MAX_REASON = 300
MAX_BODY = 262_144  # GitHub keeps 65,536 characters of a description; parsing stays < 1 s

_DETAILS_OPEN = re.compile(r"<details(?=[\s>/])", re.I)
_DETAILS_CLOSE = re.compile(r"</details\s*>", re.I)
# Block containers whose paragraphs are not a footer line of the description.
_NOT_TOP_LEVEL = frozenset({"blockquote_open", "bullet_list_open", "ordered_list_open"})


def _details_depth(html: str, depth: int) -> int:
    """``depth`` after the ``<details>`` tags opened and closed in an HTML token."""
    for match in re.finditer(f"{_DETAILS_OPEN.pattern}|{_DETAILS_CLOSE.pattern}", html, re.I):
        depth = depth + 1 if match.group(0)[1] != "/" else max(depth - 1, 0)
    return depth


def _inline_text(children: Sequence[Token], depth: int) -> tuple[str, int]:
    """The text a reader sees of one paragraph (line breaks kept) and the ``<details>``
    depth after it: inline HTML (comments, tags) and image alt text are not seen."""
    parts: list[str] = []
    for child in children:
        if child.type == "html_inline":
            depth = _details_depth(child.content, depth)
        elif depth:
            continue
        elif child.type in ("softbreak", "hardbreak"):
            parts.append("\n")
        elif child.type == "text":
            parts.append(child.content)
        elif child.type == "code_inline":  # shown as code: never the start of a footer
            parts.append(f"`{child.content}`")
    return "".join(parts), depth


def visible_lines(body: str) -> Iterator[str]:
    """The lines of the description's top-level paragraphs that a reader sees, in order."""
    from markdown_it import MarkdownIt

    tokens = MarkdownIt("commonmark").parse(body)
    depth = 0  # open <details> elements
    nesting = 0  # open block quotes and lists
    in_heading = False
    for index, token in enumerate(tokens):
        if token.type == "html_block":
            depth = _details_depth(token.content, depth)
        elif token.type in _NOT_TOP_LEVEL:
            nesting += 1
        elif token.type.replace("_close", "_open") in _NOT_TOP_LEVEL:
            nesting -= 1
        elif token.type in ("heading_open", "heading_close"):
            in_heading = token.type == "heading_open"
        elif token.type == "inline" and token.children is not None:
            top_level = not (depth or nesting or in_heading)
            text, depth = _inline_text(token.children, depth)
            if top_level and index and tokens[index - 1].type == "paragraph_open":
                yield from text.split("\n")


def acknowledgement(body: str | None, footer: str = DEFAULT_FOOTER) -> str | None:
    """The reason given on a visible ``<footer>: <reason>`` line of ``body``, or None.

    The footer must start its line and give a non-empty reason, so a sentence that merely
    mentions it does not acknowledge anything. The last such line wins, as with git trailers.
    """
    if not body:
        return None
    body = body[:MAX_BODY]
    pattern = re.compile(rf"^[ \t]*{re.escape(footer)}[ \t]*:[ \t]*(\S.*?)[ \t]*$", re.I)
    found = [m.group(1) for line in visible_lines(body) if (m := pattern.match(line))]
    return found[-1][:MAX_REASON] if found else None
