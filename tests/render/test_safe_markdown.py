"""safe_inline: whatever the text, rendered it links nothing, pings nobody, hides nothing.

Checked with a real renderer (``gfm.py``: markdown-it-py, GFM-like, linkify) over a corpus of
known payloads and over generated text, in every place our templates put untrusted text.
"""

from __future__ import annotations

import re

import pytest
from gfm import ZWJ, bad_characters, render, words
from hypothesis import example, given, settings
from hypothesis import strategies as st

from wheel_size.render.safe_markdown import (
    BODY_LIMIT,
    Inert,
    fit_body,
    github_link,
    link_url,
    neutralise,
    neutralise_cell,
    safe_inline,
    stripped_line,
)

PAYLOADS = [
    "![x](http://tracker/pixel)",
    "[click](javascript:alert(1))",
    "[click]( javascript:alert(1) )",
    "<http://tracker.example/x>",
    "<javascript:alert(1)>",
    "<mailto:a@example.com>",
    "see http://tracker.example/p and https://x.y/z and ftp://f.example/",
    "www.tracker.example/pixel",
    "mail me: someone@example.com",
    "mailto:someone@example.com xmpp:a@b.example",
    "[x][1]\n\n[1]: javascript:alert(1)",
    "[x][]\n[x]: http://tracker/pixel",
    "[x]\n\n[x]: <http://tracker/pixel> 'title'",
    "[^1]\n\n[^1]: footnote [y](http://t)",
    "[outer [inner](http://a) ](http://b)",
    "[a](<http://t/ x>)",
    "![![nested](http://a)](http://b)",
    "[`code`](http://t)",
    "``[x](http://t)`` ` [y](http://u) `",
    "`` ` `` [z](http://v)",
    "```\n[fence](http://t)\n```",
    "~~~\n<img src=x>\n~~~",
    "x`y` [q](http://t) `z",
    "a](http://t) [b",
    "\\[x\\](http://t)",
    "\\\\[x](http://t)",
    "\\",
    "&#x6a;avascript:alert(1)",
    "[x](&#x6a;avascript:alert(1))",
    "&#91;x&#93;&#40;http://t&#41;",
    "&lt;img src=x onerror=alert(1)&gt;",
    "<img src=x onerror=alert(1)>",
    "<script>alert(1)</script>",
    "<details open><summary>x</summary></details>",
    "<!-- wheel-size-action:event=jump/cpu/2025-10-11 -->",
    "<!-- wheel-size:split -->",
    "@user and @org/team cc@someone",
    "#123 owner/repo#1 GH-123 gh-7 fixes #4242",
    "https://github.com/pytorch/pytorch/issues/999",
    "https://www.github.com/o/r/pull/1",
    "\x1b[31mred\x1b[0m",
    "bell\x07 nul\x00 del\x7f c1\x85\x9b31m",
    "abc\u202etxt.exe",
    "\u2066isolate\u2069 \u200eltr\u200f \u061carabic \u202aembed\u202c",
    "zero\u200dwidth\u200bspace\ufeffbom\u2060joiner",
    "line1\nline2\r\nline3\rline4\u2028line5\u2029line6\x0bline7",
    "# heading",
    "- item",
    "+ item",
    "* item",
    "1. item",
    "1) item",
    "> quote",
    "---",
    "===",
    "***",
    "    indented code",
    "\tcode",
    "| a | b |\n|---|---|\n| [x](http://t) | c |",
    "a | b",
    "$x^2$ and $$\\huge$$",
    "**bold** _em_ ~~strike~~ *",
    "snake_case_name __dunder__",
    ":+1: emoji",
    "trailing  \nbreak",
    "x\\\ny",
    "",
    "   ",
    "\ud800 lone surrogate",
]

# Where the templates put untrusted text.
CONTEXTS = {
    "paragraph": "{}\n",
    "cell": "| a | b |\n|---|---|\n| {} | x |\n",
    "list": "- {}\n",
    "quote": "> ⚠ {}\n",
    "heading": "## Wheel size: {}\n",
    "link text": "[{}](https://example.org/ours)\n",
    "after text": "Evidence unavailable: {}\n",
}


def assert_inert(markdown: str, original: str, *, multiline: bool = False) -> None:
    assert bad_characters(markdown) == [], (original, markdown)
    if not multiline:
        assert "\n" not in markdown
    for name, context in CONTEXTS.items():
        if multiline and name != "paragraph":
            continue
        doc = context.format(markdown)
        shown = render(doc)
        ours = ["https://example.org/ours"] if name == "link text" else []
        assert shown.links == ours and shown.html == [], (name, original, doc)
        assert shown.problems(links=tuple(ours)) == [], (name, original, doc)
        # Nothing but the construct of the context itself: no emphasis, no code block,
        # no extra list, heading or table.
        allowed = {"inline", "text", "code_inline", "softbreak", "paragraph_open"}
        allowed |= {"paragraph_close"}
        allowed |= {
            "cell": {"table_open", "thead_open", "tr_open", "th_open", "th_close", "tr_close"}
            | {"thead_close", "tbody_open", "td_open", "td_close", "tbody_close", "table_close"},
            "list": {"bullet_list_open", "list_item_open", "list_item_close", "bullet_list_close"},
            "quote": {"blockquote_open", "blockquote_close"},
            "heading": {"heading_open", "heading_close"},
            "link text": {"link_open", "link_close"},
        }.get(name, set())
        assert shown.kinds <= allowed, (name, original, doc, shown.kinds - allowed)
        if name == "cell":  # still two columns: no | escaped the cell
            assert [t.type for t in shown.tokens].count("td_open") == 2, (original, doc)
        visible = shown.visible.replace(ZWJ, "")
        for word in words(original):
            assert word in visible, (name, original, doc, word)


@pytest.mark.parametrize("payload", PAYLOADS)
def test_known_payloads_are_inert(payload: str) -> None:
    assert_inert(safe_inline(payload), payload)
    assert_inert(safe_inline(payload, code=True), payload)
    assert_inert(safe_inline(payload, multiline=True), payload, multiline=True)
    assert_inert(safe_inline(payload, max_chars=12), payload[:0])


def test_examples() -> None:
    title = 'Revert "[cuda] add kernel (#165055)" @malfet cc @pytorch/team fixes pytorch/pytorch#1'
    safe = safe_inline(title)
    assert safe.replace(ZWJ, "") == (
        'Revert "\\[cuda\\] add kernel (#165055)" @malfet cc @pytorch/team fixes pytorch/pytorch#1'
    )
    assert safe_inline("<!-- wheel-size-action:event=x -->") == (
        "&lt;!-- wheel-size-action:event=x --&gt;"
    )
    assert safe_inline("see https://github.com/o/r/pull/3") == (
        f"see https{ZWJ}://github{ZWJ}.com/o/r/pull/3"
    )
    assert safe_inline("GH-12 and gh-3") == f"GH{ZWJ}-12 and gh{ZWJ}-3"
    assert safe_inline("a@example.com") == f"a{ZWJ}@{ZWJ}example.com"
    assert safe_inline("![x](http://t/p)") == f"!\\[x\\](http{ZWJ}://t/p)"
    # Names stay readable: intraword underscores, dots, plus and hyphen are left alone.
    assert safe_inline("torch-2.9.0+cu128/libtorch_cuda.so") == "torch-2.9.0+cu128/libtorch_cuda.so"
    assert safe_inline("+rocm6.3") == "+rocm6.3"
    assert safe_inline("- x") == "\\- x" and safe_inline("1. x") == "1\\. x"
    # Control and bidi characters go; the rest is kept.
    assert safe_inline("\x1b[31mred\u202eevil\u200d") == "\\[31mredevil"


def test_code_spans() -> None:
    assert safe_inline("libtorch_cuda.so", code=True) == "`libtorch_cuda.so`"
    assert safe_inline("a`b", code=True) == "``a`b``"
    assert safe_inline("`a``", code=True) == "``` `a`` ```"
    # A pipe would split a table cell even inside a code span: escaped text instead.
    assert safe_inline("a|b", code=True) == "a\\|b"
    # A "]" could end a link reference definition's label inside it.
    assert safe_inline("x]: y", code=True) == "x\\]: y"
    assert safe_inline("", code=True) == ""
    # Backtick-quoted code in prose stays code, with a fence that fits it.
    assert safe_inline("Fix `foo_bar` and `` a`b ``") == "Fix `foo_bar` and ``a`b``"
    assert safe_inline("`unclosed [x](y)") == "\\`unclosed \\[x\\](y)"
    # Code spans hold no mention or reference for GitHub: left as they are.
    assert safe_inline("`@user #1`") == "`@user #1`"


def test_inert_is_not_escaped_twice() -> None:
    once = safe_inline("a_ & <c>")
    assert isinstance(once, Inert) and once.source == "a_ & <c>"
    assert once == "a\\_ &amp; &lt;c&gt;" and safe_inline(once) is once
    assert safe_inline(once, code=True) == "`a_ & <c>`"
    # A multi-line Inert put in a cell becomes one line; a shorter limit cuts it again.
    multi = safe_inline("a\n\n\nb", multiline=True)
    assert multi == "a\n\nb" and safe_inline(multi) == "a b"
    assert safe_inline(safe_inline("x" * 50), max_chars=10) == "x" * 9 + "…"


def test_legacy_names_are_the_same_rule() -> None:
    text = "a | b\n[c](http://d)\r\ne"
    assert neutralise_cell(text) == safe_inline(text)
    assert neutralise(text) == safe_inline(text, multiline=True)
    assert neutralise_cell("a | b\nc\r\nd", max_chars=100) == "a \\| b c d"
    assert neutralise_cell("x" * 50, max_chars=10) == "x" * 9 + "…"


def test_one_line_and_links() -> None:
    assert stripped_line("wheel-size investigate\n```\n![x](http://t)\u202e") == (
        "wheel-size investigate ``` ![x](http://t)"
    )
    assert github_link("https://github.com/o/r/pull/1") == "https://redirect.github.com/o/r/pull/1"
    assert github_link("https://ghe.example/o/r/pull/1") == "https://ghe.example/o/r/pull/1"
    assert link_url("https://github.com/o/r/commit/abc") == "https://github.com/o/r/commit/abc"
    assert link_url("http://127.0.0.1:8080/o/r/commit/a?b=c#d") == (
        "http://127.0.0.1:8080/o/r/commit/a?b=c#d"
    )
    assert link_url("javascript:alert(1)") == "#"
    assert link_url("data:text/html,x") == "#"
    assert link_url("https://x/a) ![p](http://t/p") == "https://x/a%29%20!%5Bp%5D%28http://t/p"
    rendered = render(f"[ours]({link_url('https://x/a) ![p](http://t/p')})")
    assert len(rendered.links) == 1


def test_lone_surrogate_can_be_sent() -> None:
    safe_inline("a\ud800b").encode("utf-8")  # would raise UnicodeEncodeError
    assert safe_inline("a\ud800b") == "a\ufffdb"


MARKUP = (
    "ab xyz 19 @#!`*_~[]()<>{}|\\/:;.,'\"&=+-$^%? \n\r\t"
    "\x00\x1b\x7f\x85\x9b\u00a0\u200b\u200d\u200e\u202e\u2028\u2066\ufeff"
)
WORDS = st.sampled_from(
    [
        "http",
        "https://",
        "www.",
        "javascript:",
        "mailto:",
        "github.com/",
        "a@b.co",
        "GH-1",
        "#1",
        "@u",
        "&#x6a;",
        "&lt;",
        "<img ",
        "<!--",
        "-->",
        "](",
        "![",
        "[1]: ",
        "``",
        "```",
        "\\",
        "1. ",
        "- ",
        "# ",
        "---",
        "x_y",
    ]
)
HOSTILE = st.lists(st.one_of(st.text(alphabet=MARKUP, max_size=6), WORDS), max_size=25).map("".join)


@settings(max_examples=300, deadline=None)
@given(st.one_of(HOSTILE, st.text(max_size=80)))
@example("[a](b)")
@example("``[x](http://t)`` `")
def test_any_text_is_inert(text: str) -> None:
    assert_inert(safe_inline(text), text)
    assert_inert(safe_inline(text, code=True), text)
    assert_inert(safe_inline(text, multiline=True), text, multiline=True)


@settings(max_examples=100, deadline=None)
@given(st.one_of(HOSTILE, st.text(max_size=80)), st.integers(min_value=1, max_value=40))
def test_shortened_text_is_inert(text: str, limit: int) -> None:
    safe = safe_inline(text, max_chars=limit)
    assert len(safe.source) <= limit
    assert_inert(safe, safe.source)


@given(st.text(min_size=0, max_size=3000), st.integers(min_value=200, max_value=2500))
def test_fit_body(text: str, limit: int) -> None:
    fitted = fit_body(text, limit)
    assert len(fitted) <= limit
    if len(text) <= limit:
        assert fitted == text
    else:
        found = re.search(r"… ([\d,]+) characters left out", fitted)
        assert found is not None
        left_out = int(found[1].replace(",", ""))
        assert fitted.startswith(text[: len(text) - left_out])
        assert len(text) - left_out == fitted.index("\n\n… ")


def test_fit_body_default_limit() -> None:
    text = "line\n" * 20_000
    fitted = fit_body(text)
    assert len(fitted) <= BODY_LIMIT
    assert "characters left out" in fitted
