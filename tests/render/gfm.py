"""Render Markdown with a real CommonMark/GFM parser and say what a reader would get.

markdown-it-py with its ``gfm-like`` preset (tables, strikethrough, raw HTML, linkify) stands
in for GitHub. Two GitHub behaviours it does not have are checked on the rendered text:
GFM's extended autolinks (``www.``, ``scheme://``, e-mail addresses, which linkify-it only
finds with fuzzy matching that would also link every ``libtorch.so``), and GitHub's
mentions and issue references. Text inside code spans is exempt, as on GitHub.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field

from markdown_it import MarkdownIt
from markdown_it.token import Token

# GitHub's auto-linkers, stricter than GitHub (no look-behind for www. and schemes).
AUTOLINK = re.compile(
    r"www\.|[A-Za-z][A-Za-z0-9+.\-]*://|[A-Za-z0-9._+\-]@[A-Za-z0-9_\-]+\.[A-Za-z0-9]", re.I
)
MENTION = re.compile(r"(?<![A-Za-z0-9`])@[A-Za-z0-9]")
REFERENCE = re.compile(r"#\d|\bGH-\d", re.I)
BIDI = set("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c")
ZWJ = "\u200d"


def parser() -> MarkdownIt:
    md = MarkdownIt("gfm-like", {"linkify": True})
    assert md.linkify is not None  # linkify-it-py is installed with markdown-it-py[linkify]
    md.linkify.set({"fuzzy_link": False, "fuzzy_ip": False})
    md.linkify.add("//", None)  # GitHub does not link protocol-relative "//host"
    return md


_MD = parser()


@dataclass
class Rendered:
    """What a reader sees of one Markdown document."""

    tokens: list[Token]
    links: list[str] = field(default_factory=list)  # hrefs and image srcs
    html: list[str] = field(default_factory=list)  # raw HTML, inline and blocks
    kinds: set[str] = field(default_factory=set)  # every token type, block and inline
    prose: list[str] = field(default_factory=list)  # text outside code spans
    code: list[str] = field(default_factory=list)  # code span contents

    @property
    def visible(self) -> str:
        return " ".join(self.prose + self.code)

    def problems(self, links: tuple[str, ...] = (), html: tuple[str, ...] = ()) -> list[str]:
        """Everything that is not plain text: links and images (but those starting with one
        of ``links``), raw HTML (but that starting with one of ``html``), pings, references."""
        found = [f"link/image: {x!r}" for x in self.links if not x.startswith(links or "\0")]
        found += [f"html: {x!r}" for x in self.html if not x.startswith(html or "\0")]
        for text in self.prose:
            for pattern in (AUTOLINK, MENTION, REFERENCE):
                found += [f"{pattern.pattern[:20]}: {m.group(0)!r}" for m in pattern.finditer(text)]
        return found


def render(markdown: str) -> Rendered:
    tokens = _MD.parse(markdown)
    out = Rendered(tokens)

    def walk(items: list[Token]) -> None:
        for tok in items:
            out.kinds.add(tok.type)
            if tok.type in ("link_open", "image"):
                out.links.append(str(tok.attrs.get("href") or tok.attrs.get("src")))
            elif tok.type in ("html_inline", "html_block"):
                out.html.append(tok.content)
            elif tok.type == "text":
                out.prose.append(tok.content)
            elif tok.type == "code_inline":
                out.code.append(tok.content)
            if tok.children:
                walk(tok.children)

    walk(tokens)
    return out


def bad_characters(text: str) -> list[str]:
    """Control, bidi and invisible format characters (our own ZWJs excepted)."""
    return [
        f"U+{ord(ch):04X}"
        for ch in text
        if ch != "\n"
        and ch != ZWJ
        and (ch in BIDI or unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Zl", "Zp"))
    ]


def words(text: str) -> list[str]:
    """The printable words of ``text``: runs of letters and digits."""
    return re.findall(r"[^\W_]+", text)
