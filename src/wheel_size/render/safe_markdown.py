"""Make text we did not write safe to post on GitHub.

Commit titles, file names from wheels, artifact and branch names, error messages quoted from
remote data: all of it ends up in issue bodies, comments, step summaries and reports, posted
under the bot's name. Copied verbatim it would ping people (``@user``), put "mentioned this"
back-references on every pull request it names (``#123``, ``owner/repo#123``, ``GH-123``,
issue URLs), close issues (``fixes #123``), forge the hidden HTML-comment markers that
identify our own issues, show images that track readers (``![x](http://tracker/pixel)``),
offer ``javascript:`` links, and reorder or hide what a reader sees (bidi overrides, ESC).

:func:`safe_inline` is the one rule for all of it. The text is treated as plain text, except
that backtick-quoted code stays a code span:

- control, format (bidi overrides, zero-width joiners, BOM) and surrogate characters go;
- every character that could start a link, image, autolink, raw HTML, entity, table cell,
  emphasis, math or a block at the start of a line is backslash-escaped or an entity;
- a zero-width joiner (what Dependabot does for mentions) breaks GitHub's auto-linkers:
  mentions, issue references, bare URLs, ``www.``, e-mail addresses and github.com URLs
  (which would put back-references on the issues they name).

Links we build ourselves are made safe as link destinations by :func:`link_url`; those to
pull requests go through ``redirect.github.com`` (:func:`github_link`), which GitHub
provides so that links do not create back-references.

The result renders as the same visible text (apart from the removed invisible characters).
It is an :class:`Inert` string: the template filters pass it through unchanged, so text made
safe in Python is not escaped twice in a template.
"""

from __future__ import annotations

import re
import unicodedata
from collections import defaultdict, deque
from urllib.parse import quote, urlsplit

__all__ = [
    "BODY_LIMIT",
    "ZWJ",
    "Inert",
    "fit_body",
    "github_link",
    "link_url",
    "neutralise",
    "neutralise_cell",
    "plain_cell",
    "safe_inline",
    "stripped_line",
]

#: GitHub refuses issue and comment bodies over 65,536 characters (422 "Body is too long").
BODY_LIMIT = 65_536

#: U+200D ZERO WIDTH JOINER: invisible, and no GitHub auto-linker matches across it.
ZWJ = "\u200d"


class Inert(str):
    """Markdown that :func:`safe_inline` produced from ``source`` (the cleaned plain text,
    on one line unless ``multiline``)."""

    source: str
    multiline: bool

    def __new__(cls, markdown: str, source: str, multiline: bool) -> Inert:
        obj = super().__new__(cls, markdown)
        obj.source = source
        obj.multiline = multiline
        return obj


# --- cleaning: what no reader should receive -------------------------------------------------

# Characters that end a line for a reader; everything else in Cc goes.
_LINE_BREAKS = "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"


def _clean_char(ch: str) -> str:
    if ch in _LINE_BREAKS:
        return "\n"
    category = unicodedata.category(ch)
    if category == "Zs" or ch == "\t":
        return " "
    if category in ("Cc", "Cf"):  # ESC and C0/C1 controls; bidi overrides, ZWJ, BOM, tags
        return ""
    if category == "Cs":  # a lone surrogate cannot even be sent as UTF-8
        return "\ufffd"
    return ch


def _clean(text: str, multiline: bool) -> str:
    """Plain text without invisible or control characters; one line unless ``multiline``."""
    text = text.replace("\r\n", "\n")
    if not text.isprintable():  # fast path: most titles and names are
        text = "".join(_clean_char(ch) for ch in text)
    if not multiline:
        return " ".join(text.split())
    lines = [" ".join(line.split()) for line in text.split("\n")]
    kept: list[str] = []
    for line in lines:
        if line or (kept and kept[-1]):  # at most one blank line in a row
            kept.append(line)
    while kept and not kept[-1]:
        kept.pop()
    return "\n".join(kept)


def _truncate(text: str, max_chars: int | None) -> str:
    if max_chars is None or len(text) <= max_chars:
        return text
    return text[: max(max_chars - 1, 0)].rstrip() + "…"


def stripped_line(text: str) -> str:
    """``text`` on one line without control or bidi characters, otherwise unchanged.

    For a line inside a fenced code block (a shell command, a Mermaid title), where Markdown
    is not parsed and escapes would show: one line cannot close the fence. (It strips;
    :func:`wheel_size.oneline.one_line` escapes, for logs and annotations.)
    """
    return _clean(text, multiline=False)


# --- escaping: plain text that Markdown and GitHub leave alone --------------------------------

# Backslash-escaped wherever they are: link, image and footnote brackets, code, emphasis,
# strikethrough, math, table cells, and the backslash itself.
_PUNCTUATION = re.compile(r"[\\`*\[\]|~$]")
# ``_`` between two letters or digits is never emphasis (``libtorch_cuda``): left alone.
_UNDERSCORE = re.compile(r"(?<![^\W_])_|_(?![^\W_])")
# Block markers at the start of a line: heading, bullet list item, setext underline and
# thematic break (a run of one marker, then a space or the end); ordered list item ("1. ").
_BLOCK_MARKER = re.compile(r"^([#+=-])\1*(?= |$)")
_ORDERED = re.compile(r"^(\d{1,9})(?=[.)](?: |$))")
# Issue, pull request and discussion URLs on github.com create back-references too.
_GITHUB_URL = re.compile(r"https?://(?:www\.)?github\.com/", re.IGNORECASE)
# Auto-linkers: @mention (GitHub names are alphanumerics and hyphens), e-mail addresses
# (the local part just before the "@"), #123 and owner/repo#123, GH-123, scheme://, www.
_AT_AFTER = re.compile(r"@(?=[A-Za-z0-9])")
_AT_BEFORE = re.compile(r"(?<=.)@")  # linkify-it's local parts take more than GFM's
_ISSUE_REF = re.compile(r"#(?=\d)")
_GH_REF = re.compile(r"\b(GH)-(?=\d)", re.IGNORECASE)
_SCHEME = re.compile(r"(?<=[A-Za-z0-9+.\-]):(?=//)")
_WWW = re.compile(r"(www)(?=\.)", re.IGNORECASE)
# github.com itself, with or without a scheme: no issue or pull request URL is recognised.
_GITHUB_HOST = re.compile(r"(github)(?=\.com)", re.IGNORECASE)


def _escape(text: str) -> str:
    """Plain text (no code spans) as inert Markdown."""
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    text = _PUNCTUATION.sub(r"\\\g<0>", text)
    text = _UNDERSCORE.sub(r"\\_", text)
    text = _AT_AFTER.sub("@" + ZWJ, text)
    text = _AT_BEFORE.sub(ZWJ + "@", text)
    text = _ISSUE_REF.sub("#" + ZWJ, text)
    text = _GH_REF.sub(lambda m: m.group(1) + ZWJ + "-", text)
    text = _SCHEME.sub(ZWJ + ":", text)
    text = _GITHUB_HOST.sub(lambda m: m.group(1) + ZWJ, text)
    return _WWW.sub(lambda m: m.group(1) + ZWJ, text)


def _code_span(content: str) -> str | None:
    """``content`` as one code span with a fence longer than any backtick run inside it.

    None when it cannot be one: empty; holding a ``|``, which a GFM table would split even
    inside a code span (and ``\\|`` would show outside tables); or holding a ``]``, which
    can end the label of a link reference definition (``[`]: x`](y)`` at a line start),
    because definitions are found before code spans.
    """
    content = content.strip()
    if not content or "|" in content or "]" in content:
        return None
    longest = max((len(run) for run in re.findall(r"`+", content)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if content.startswith("`") or content.endswith("`") else ""
    return f"{fence}{pad}{content}{pad}{fence}"


def _line(text: str) -> str:
    """One line of plain text where backtick-quoted code (as CommonMark pairs it) stays code."""
    runs = [(m.start(), m.end()) for m in re.finditer(r"`+", text)]
    later: defaultdict[int, deque[int]] = defaultdict(deque)  # run length -> run indices
    for index, (start, end) in enumerate(runs):
        later[end - start].append(index)
    out: list[str] = []
    done = 0  # text[:done] is in out
    index = 0
    while index < len(runs):
        start, end = runs[index]
        same = later[end - start]
        while same and same[0] <= index:
            same.popleft()
        if start < done or not same:
            index += 1
            continue
        close = same.popleft()
        span = _code_span(text[end : runs[close][0]])
        if span is not None:
            out.append(_escape(text[done:start]))
            out.append(span)
            done = runs[close][1]
        index = close + 1
    out.append(_escape(text[done:]))
    line = "".join(out)
    if _BLOCK_MARKER.match(line):
        return "\\" + line
    return _ORDERED.sub(r"\1\\", line, count=1)


def safe_inline(
    text: str, *, code: bool = False, multiline: bool = False, max_chars: int | None = None
) -> Inert:
    """``text`` we did not write, as Markdown that renders it literally and links nothing.

    ``code`` renders it as one code span (for names; escaped text instead if it holds a
    ``|`` or ``]``); ``multiline`` keeps line breaks (never in a table cell); ``max_chars`` shortens
    it with an ellipsis. Safe anywhere inline: in a table cell, a list item, a heading,
    link text, or a paragraph of its own. :class:`Inert` input that already fits is returned
    as it is, so applying the rule twice changes nothing.
    """
    if isinstance(text, Inert):
        fits = max_chars is None or len(text.source) <= max_chars
        if not code and fits and (multiline or not text.multiline):
            return text
        text = text.source
    source = _truncate(_clean(text, multiline and not code), max_chars)
    if code:
        span = _code_span(source)
        return Inert(span if span is not None else _line(source), source, False)
    markdown = "\n".join(_line(line) for line in source.split("\n"))
    return Inert(markdown, source, multiline)


def neutralise(text: str) -> str:
    """:func:`safe_inline` keeping line breaks (for a paragraph of its own)."""
    return safe_inline(text, multiline=True)


def neutralise_cell(text: str, max_chars: int | None = None) -> str:
    """:func:`safe_inline` on one line, e.g. for a Markdown table cell or list item."""
    return safe_inline(text, max_chars=max_chars)


def plain_cell(text: str, max_chars: int | None = None) -> str:
    """Text from a wheel (paths, section names) for a table cell or code span: its own
    backticks become quotes, so it can never open or close a code span."""
    return safe_inline(text.replace("`", "'"), max_chars=max_chars)


# --- links we build ourselves ------------------------------------------------------------------

# What may stay as it is in a link destination: RFC 3986 unreserved and reserved characters
# except the ones Markdown gives a meaning there (parentheses, brackets, ``<`` ``>``, quotes).
_URL_SAFE = "-._~:/?#@!$&*+,;=%"


def github_link(url: str) -> str:
    """A link to a github.com page that does not put a back-reference on it."""
    return _GITHUB_URL.sub("https://redirect.github.com/", url)


def link_url(url: str) -> str:
    """``url`` as a Markdown link destination that cannot end early or run script.

    Only http(s) URLs are kept (anything else becomes ``#``); spaces, parentheses,
    brackets, quotes, backslashes and non-ASCII characters are percent-encoded.
    """
    cleaned = stripped_line(url)
    try:
        scheme = urlsplit(cleaned).scheme.lower()
    except ValueError:
        return "#"
    if scheme not in ("http", "https"):
        return "#"
    return quote(cleaned, safe=_URL_SAFE + "'")


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
