from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from wheel_size.render.safe_markdown import (
    BODY_LIMIT,
    ZWJ,
    fit_body,
    github_link,
    neutralise,
    neutralise_cell,
)

# What GitHub's auto-linkers look for (simplified but stricter than GitHub: any of these
# surviving would be a ping, a back-reference or a forged marker).
MENTION = re.compile(r"(?<![A-Za-z0-9])@[A-Za-z0-9]")
ISSUE_REF = re.compile(r"#\d")
GH_REF = re.compile(r"\bGH-\d", re.I)
GITHUB_URL = re.compile(r"://(www\.)?github\.com/", re.I)


def assert_inert(text: str) -> None:
    assert not MENTION.search(text), text
    assert not ISSUE_REF.search(text), text
    assert not GH_REF.search(text), text
    assert "<" not in text and ">" not in text, text
    assert not GITHUB_URL.search(text), text


def test_examples() -> None:
    title = 'Revert "[cuda] add kernel (#165055)" @malfet cc @pytorch/team fixes pytorch/pytorch#1'
    safe = neutralise(title)
    assert_inert(safe)
    # Visible text is unchanged apart from invisible joiners.
    assert safe.replace(ZWJ, "") == title
    assert neutralise("<!-- wheel-size-action:event=x -->") == (
        "&lt;!-- wheel-size-action:event=x --&gt;"
    )
    assert neutralise("see https://github.com/o/r/pull/3") == (
        "see https://redirect.github.com/o/r/pull/3"
    )
    assert neutralise("GH-12 and gh-3") == f"GH{ZWJ}-12 and gh{ZWJ}-3"
    # E-mail addresses are not mentions and stay as they are.
    assert neutralise("a@example.com") == "a@example.com"


def test_cell_is_one_line_without_pipes() -> None:
    cell = neutralise_cell("a | b\nc\r\nd", max_chars=100)
    assert cell == "a \\| b c d"
    assert neutralise_cell("x" * 50, max_chars=10) == "x" * 9 + "…"


def test_github_link() -> None:
    assert github_link("https://github.com/o/r/pull/1") == "https://redirect.github.com/o/r/pull/1"
    assert github_link("https://ghe.example/o/r/pull/1") == "https://ghe.example/o/r/pull/1"


@given(st.text())
def test_neutralised_text_is_inert(text: str) -> None:
    assert_inert(neutralise(text))
    assert_inert(neutralise_cell(text))
    assert "\n" not in neutralise_cell(text)


@given(st.text(alphabet="ab@#1<>-!GHgh/:.com\n|&", max_size=200))
def test_inert_on_dense_markup(text: str) -> None:
    assert_inert(neutralise(text))


@given(st.text(min_size=0, max_size=3000), st.integers(min_value=200, max_value=2500))
def test_fit_body(text: str, limit: int) -> None:
    fitted = fit_body(text, limit)
    assert len(fitted) <= limit
    if len(text) <= limit:
        assert fitted == text
    else:
        left_out = int(re.search(r"… ([\d,]+) characters left out", fitted)[1].replace(",", ""))
        assert fitted.startswith(text[: len(text) - left_out])
        assert len(text) - left_out == fitted.index("\n\n… ")


def test_fit_body_default_limit() -> None:
    text = "line\n" * 20_000
    fitted = fit_body(text)
    assert len(fitted) <= BODY_LIMIT
    assert "characters left out" in fitted
