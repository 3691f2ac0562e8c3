from __future__ import annotations

import datetime as dt

from hypothesis import given
from hypothesis import strategies as st

from wheel_size.regressions.window.nightly import format_nightly_message, parse_nightly_message

SHA = "0123456789abcdef0123456789abcdef01234567"


def test_pytorch_message() -> None:
    parsed = parse_nightly_message(f"2025-10-11 nightly release ({SHA})\n")
    assert parsed.base_sha == SHA
    assert parsed.date == dt.date(2025, 10, 11)
    assert parsed.problem is None


def test_tolerant_spelling() -> None:
    for message in (
        f"2025-10-11  Nightly Release  ( {SHA.upper()} )",
        f"chore: 2025-10-11 nightly release: {SHA[:12]}",
        f"Merge stuff\n\n2025-10-11 nightly release [{SHA}]",
    ):
        parsed = parse_nightly_message(message)
        assert parsed.base_sha is not None and SHA.startswith(parsed.base_sha), message


def test_missing_base_sha_says_so() -> None:
    parsed = parse_nightly_message("2025-10-11 nightly release")
    assert parsed.base_sha is None
    assert parsed.date == dt.date(2025, 10, 11)
    assert parsed.problem is not None and "names no base SHA" in parsed.problem


def test_unrelated_message_and_empty() -> None:
    assert parse_nightly_message("Fix the build (#123)").base_sha is None
    assert "not 'YYYY-MM-DD" in (parse_nightly_message("Fix the build").problem or "")
    assert parse_nightly_message("").problem == "the nightly commit has no message"
    assert parse_nightly_message(None).base_sha is None


def test_impossible_date_keeps_the_sha() -> None:
    parsed = parse_nightly_message(f"2025-13-45 nightly release ({SHA})")
    assert parsed.base_sha == SHA
    assert parsed.date is None


@given(
    st.dates(min_value=dt.date(1970, 1, 1), max_value=dt.date(9999, 12, 31)),
    st.text(alphabet="0123456789abcdef", min_size=40, max_size=40),
    st.text(max_size=50),
)
def test_round_trip(date: dt.date, sha: str, trailer: str) -> None:
    message = format_nightly_message(date, sha) + "\n" + trailer
    parsed = parse_nightly_message(message)
    assert parsed.base_sha == sha
    assert parsed.date == date


@given(st.text())
def test_never_raises_and_problem_iff_no_sha(message: str) -> None:
    parsed = parse_nightly_message(message)
    assert (parsed.base_sha is None) == (parsed.problem is not None)
    if parsed.base_sha is not None:
        assert parsed.base_sha in message.lower()
