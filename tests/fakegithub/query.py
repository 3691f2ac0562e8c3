"""Query syntax the fake understands: GitHub's search date qualifiers (``created=``),
issue-search ``q`` strings, and page slicing with ``Link`` headers.

Kept apart from the HTTP handler so the parsing rules can be tested on their own.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import TypeVar
from urllib.parse import urlencode

T = TypeVar("T")

_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_DATETIME = re.compile(
    r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?(\.\d+)?(Z|[+-]\d{2}:?\d{2})?$",
)


class QueryError(ValueError):
    """A query parameter GitHub would refuse (the handler answers 422)."""


def parse_time(text: str) -> datetime:
    """Parse an ISO 8601 timestamp as GitHub writes it (``2025-10-11T07:30:00Z``)."""
    value = text.strip()
    if value.endswith("Z"):
        value = value[:-1] + "+00:00"
    moment = datetime.fromisoformat(value)
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    return moment.astimezone(timezone.utc)


def format_time(moment: datetime) -> str:
    """GitHub's timestamp format: UTC, second precision, trailing ``Z``."""
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


@dataclass(frozen=True)
class _Bound:
    """One end of a date qualifier: a point plus whether it names a whole day."""

    start: datetime
    end: datetime  # exclusive end: start + 1 day for a bare date, start + 1 µs for a time


def _bound(text: str) -> _Bound:
    if _DATE.match(text):
        try:
            start = datetime.strptime(text, "%Y-%m-%d").replace(tzinfo=timezone.utc)
        except ValueError as exc:
            raise QueryError(f"invalid date {text!r}") from exc
        return _Bound(start, start + timedelta(days=1))
    if _DATETIME.match(text):
        try:
            start = parse_time(text)
        except ValueError as exc:
            raise QueryError(f"invalid date {text!r}") from exc
        return _Bound(start, start + timedelta(microseconds=1))
    raise QueryError(f"invalid date {text!r}")


@dataclass(frozen=True)
class TimeRange:
    """Half-open interval [lower, upper) of UTC instants; None means unbounded."""

    lower: datetime | None
    upper: datetime | None

    def __contains__(self, moment: object) -> bool:
        if not isinstance(moment, datetime):
            return False
        if self.lower is not None and moment < self.lower:
            return False
        return not (self.upper is not None and moment >= self.upper)


def parse_date_qualifier(text: str) -> TimeRange:
    """GitHub's search date syntax: ``D``, ``>D``, ``>=D``, ``<D``, ``<=D``, ``A..B``,
    ``A..*``, ``*..B``; ``D`` is a date (a whole UTC day) or a timestamp."""
    text = text.strip()
    if not text:
        raise QueryError("empty date qualifier")
    if ".." in text:
        low, _, high = text.partition("..")
        lower = None if low == "*" else _bound(low).start
        upper = None if high == "*" else _bound(high).end
        return TimeRange(lower, upper)
    for op in (">=", "<=", ">", "<"):
        if text.startswith(op):
            bound = _bound(text[len(op) :])
            if op == ">=":
                return TimeRange(bound.start, None)
            if op == ">":
                return TimeRange(bound.end, None)
            if op == "<=":
                return TimeRange(None, bound.end)
            return TimeRange(None, bound.start)
    bound = _bound(text)
    return TimeRange(bound.start, bound.end)


@dataclass
class IssueQuery:
    """The parts of a ``/search/issues`` ``q`` string the fake honours."""

    repos: list[str] = field(default_factory=list)
    kind: str | None = None  # "issue" or "pr"
    state: str | None = None
    labels: list[str] = field(default_factory=list)
    authors: list[str] = field(default_factory=list)
    scopes: set[str] = field(default_factory=set)  # "title", "body", "comments"
    terms: list[str] = field(default_factory=list)  # words and quoted phrases
    sort: str | None = None


def parse_issue_query(q: str) -> IssueQuery:
    """Split a search string into qualifiers and free text (quoted phrases stay whole)."""
    try:
        tokens = shlex.split(q, posix=True)
    except ValueError as exc:
        raise QueryError(f"cannot parse search query {q!r}: {exc}") from exc
    query = IssueQuery()
    for token in tokens:
        key, sep, value = token.partition(":")
        key = key.lower()
        if not sep or not value:
            query.terms.append(token)
            continue
        if key == "repo":
            query.repos.append(value.lower())
        elif key in ("is", "type"):
            value = value.lower()
            if value in ("issue", "pr"):
                query.kind = value
            elif value in ("open", "closed"):
                query.state = value
            elif value == "pull-request":
                query.kind = "pr"
        elif key == "state":
            query.state = value.lower()
        elif key == "label":
            query.labels.extend(v for v in value.split(",") if v)
        elif key in ("author", "creator"):
            query.authors.append(value.lower())
        elif key == "in":
            query.scopes.update(v.lower() for v in value.split(","))
        elif key == "sort":
            query.sort = value
        else:
            # Unknown qualifiers are treated like GitHub treats an unmatched one: as text.
            query.terms.append(token)
    return query


def page_params(query: dict[str, str], *, default: int = 30, maximum: int = 100) -> tuple[int, int]:
    """``(per_page, page)`` from the query, clamped the way GitHub clamps them."""
    try:
        per_page = int(query.get("per_page", default))
    except ValueError:
        per_page = default
    if per_page <= 0:
        per_page = default
    per_page = min(per_page, maximum)
    try:
        page = int(query.get("page", 1))
    except ValueError:
        page = 1
    return per_page, max(page, 1)


def link_header(
    base_url: str, query: dict[str, str], page: int, per_page: int, total: int
) -> str | None:
    """GitHub's ``Link`` header, exactly ``<url>; rel="next", <url>; rel="last"`` joined by
    ``", "`` (PyGithub splits on that); None when everything fits on one page."""
    last = max(1, -(-total // per_page))
    if last <= 1 and page <= 1:
        return None

    def url(n: int) -> str:
        params = dict(query)
        params["per_page"] = str(per_page)
        params["page"] = str(n)
        return f"{base_url}?{urlencode(params)}"

    parts = []
    if page > 1:
        parts.append(f'<{url(min(page - 1, last))}>; rel="prev"')
    if page < last:
        parts.append(f'<{url(page + 1)}>; rel="next"')
        parts.append(f'<{url(last)}>; rel="last"')
    if page > 1:
        parts.append(f'<{url(1)}>; rel="first"')
    return ", ".join(parts) or None


def slice_page(items: Sequence[T], per_page: int, page: int) -> list[T]:
    """The items of one page (1-based)."""
    start = (page - 1) * per_page
    return list(items[start : start + per_page])
