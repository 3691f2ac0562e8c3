"""The fake's query rules: GitHub's date qualifiers, search strings and Link headers."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from fakegithub.query import (
    QueryError,
    link_header,
    page_params,
    parse_date_qualifier,
    parse_issue_query,
)


def utc(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=timezone.utc)


@pytest.mark.parametrize(
    ("qualifier", "inside", "outside"),
    [
        (
            "2025-10-11",
            ["2025-10-11T00:00:00", "2025-10-11T23:59:59"],
            ["2025-10-10T23:59:59", "2025-10-12T00:00:00"],
        ),
        (">=2025-10-11", ["2025-10-11T00:00:00", "2026-01-01T00:00:00"], ["2025-10-10T23:59:59"]),
        (">2025-10-11", ["2025-10-12T00:00:00"], ["2025-10-11T23:59:59"]),
        ("<=2025-10-11", ["2025-10-11T23:59:59", "2000-01-01T00:00:00"], ["2025-10-12T00:00:00"]),
        ("<2025-10-11", ["2025-10-10T23:59:59"], ["2025-10-11T00:00:00"]),
        (
            "2025-10-01..2025-10-31",
            ["2025-10-01T00:00:00", "2025-10-31T23:59:59"],
            ["2025-11-01T00:00:00", "2025-09-30T23:59:59"],
        ),
        ("2025-10-01..*", ["2030-01-01T00:00:00"], ["2025-09-30T23:59:59"]),
        ("*..2025-10-01", ["1999-01-01T00:00:00"], ["2025-10-02T00:00:00"]),
        (
            "2025-10-11T07:00:00Z..2025-10-11T08:00:00Z",
            ["2025-10-11T07:00:00", "2025-10-11T08:00:00"],
            ["2025-10-11T06:59:59", "2025-10-11T08:00:01"],
        ),
        (">=2025-10-11T09:00:00+02:00", ["2025-10-11T07:00:00"], ["2025-10-11T06:59:59"]),
    ],
)
def test_date_qualifiers(qualifier: str, inside: list[str], outside: list[str]) -> None:
    window = parse_date_qualifier(qualifier)
    for text in inside:
        assert utc(text) in window, text
    for text in outside:
        assert utc(text) not in window, text


@pytest.mark.parametrize("bad", ["", "yesterday", "2025-13-45", ">=", "2025-10-01...2025-10-02x"])
def test_bad_date_qualifiers(bad: str) -> None:
    with pytest.raises(QueryError):
        parse_date_qualifier(bad)


def test_issue_query() -> None:
    q = parse_issue_query(
        'repo:pytorch/pytorch is:issue state:open label:"size regression" label:cuda '
        '"sizewatch:key=nightly/2025-10-11" in:body jump'
    )
    assert q.repos == ["pytorch/pytorch"]
    assert q.kind == "issue"
    assert q.state == "open"
    assert q.labels == ["size regression", "cuda"]
    assert q.scopes == {"body"}
    assert q.terms == ["sizewatch:key=nightly/2025-10-11", "jump"]


def test_page_params_clamp() -> None:
    assert page_params({}) == (30, 1)
    assert page_params({"per_page": "1000", "page": "3"}) == (100, 3)
    assert page_params({"per_page": "0", "page": "-1"}) == (30, 1)
    assert page_params({"per_page": "500"}, default=300, maximum=300) == (300, 1)


def test_link_header_format() -> None:
    assert link_header("http://h/x", {}, 1, 30, 30) is None
    link = link_header("http://h/x", {"branch": "nightly"}, 2, 10, 35)
    assert link == (
        '<http://h/x?branch=nightly&per_page=10&page=1>; rel="prev", '
        '<http://h/x?branch=nightly&per_page=10&page=3>; rel="next", '
        '<http://h/x?branch=nightly&per_page=10&page=4>; rel="last", '
        '<http://h/x?branch=nightly&per_page=10&page=1>; rel="first"'
    )
