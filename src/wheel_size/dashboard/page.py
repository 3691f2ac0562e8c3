"""The dashboard page: one self-contained ``index.html`` for GitHub Pages.

Input is what ``wheel-size report --format json`` prints (one object per watched variant)
and the regression issues opened for its jumps. The page loads nothing from anywhere (a
Content-Security-Policy says so), so it works from a data branch, a Pages site or a file.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit

from wheel_size.dashboard.buildchart import BuildChart, build_time_chart
from wheel_size.dashboard.chart import Chart, artifact_label, build_chart
from wheel_size.dashboard.numbers import NumbersView, numbers_view
from wheel_size.errors import InputError
from wheel_size.fileio import atomic_write_text
from wheel_size.render import render
from wheel_size.report.document import ReportJson

__all__ = [
    "IssueLinks",
    "VariantView",
    "issue_links_from_json",
    "render_dashboard",
    "reports_from_json",
    "write_dashboard",
]

# (variant, date) -> issue URL
IssueLinks = Mapping[tuple[str, str], str]

_DATE = re.compile(r"\d{4}-\d{2}-\d{2}\Z")
_RECENT_DAYS = 10
# The page is rewritten every night on the data branch; a bounded table keeps each version
# (and so the branch's git history) small. The full history is in the report and the store.
_BREAKDOWN_DAYS = 92


@dataclass(frozen=True)
class DayRow:
    date: str
    size_mb: float | None
    delta_mb: float | None
    status: str
    artifact: str | None
    run_url: str | None


@dataclass(frozen=True)
class JumpRow:
    date: str
    delta_mb: float | None
    size_mb: float | None
    url: str | None


@dataclass(frozen=True)
class VariantView:
    """Everything the template shows for one watched variant."""

    variant: str
    anchor: str
    report: ReportJson
    chart: Chart
    jumps: list[JumpRow]
    days: list[DayRow]
    recent: list[DayRow]
    breakdown: list[DayRow]
    latest: DayRow | None
    observations: list[Mapping[str, Any]]
    build_chart: BuildChart | None = None  # only when the report carries build time
    numbers: NumbersView | None = None  # installed size and forecast, when the report has them


def safe_url(url: object) -> str | None:
    """``url`` if it is an http(s) URL, else None: no ``javascript:`` link ever reaches a page."""
    if not isinstance(url, str):
        return None
    parts = urlsplit(url)
    if parts.scheme in ("http", "https") and parts.netloc and not any(c in url for c in "\r\n"):
        return url
    return None


def reports_from_json(data: object, source: str = "report") -> list[ReportJson]:
    """Accept one report object, a list of them, or ``{"reports": [...]}``."""
    if isinstance(data, Mapping) and "reports" in data:
        data = data["reports"]
    items = [data] if isinstance(data, Mapping) else data
    if not isinstance(items, list) or not items:
        raise InputError(f"{source}: expected a report object or a non-empty list of them")
    reports: list[ReportJson] = []
    for number, item in enumerate(items, 1):
        if not isinstance(item, Mapping):
            raise InputError(f"{source}: report {number} is not a JSON object")
        if not isinstance(item.get("days"), list):
            raise InputError(f"{source}: report {number} has no 'days' list")
        if not (item.get("variant") or item.get("artifact")):
            raise InputError(f"{source}: report {number} names neither a variant nor an artifact")
        reports.append(dict(item))
    return reports


def issue_links_from_json(
    data: Any,
    *,
    repository: str | None = None,
    server_url: str = "https://github.com",
    source: str = "issues",
) -> dict[tuple[str, str], str]:
    """Read ``[{"variant", "date", "url" | "number"}]`` (or ``{"issues": [...]}``).

    A bare issue number becomes ``<server>/<repository>/issues/<number>``.
    """
    if isinstance(data, Mapping):
        data = data.get("issues", [])
    if not isinstance(data, list):
        raise InputError(f"{source}: expected a list of issue links")
    links: dict[tuple[str, str], str] = {}
    for number, item in enumerate(data, 1):
        if not isinstance(item, Mapping):
            raise InputError(f"{source}: entry {number} is not a JSON object")
        variant, date = item.get("variant"), item.get("date")
        if not isinstance(variant, str) or not isinstance(date, str) or not _DATE.match(date):
            raise InputError(f"{source}: entry {number} needs a 'variant' and a YYYY-MM-DD 'date'")
        url = safe_url(item.get("url"))
        issue = item.get("number")
        if url is None and isinstance(issue, int) and not isinstance(issue, bool) and repository:
            url = f"{server_url.rstrip('/')}/{quote(repository)}/issues/{issue}"
        if url is None:
            raise InputError(
                f"{source}: entry {number} has no http(s) 'url' and no usable 'number'"
            )
        links[(variant, date)] = url
    return links


def _anchor(name: str, taken: set[str]) -> str:
    base = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") or "variant"
    anchor, n = base, 2
    while anchor in taken:
        anchor, n = f"{base}-{n}", n + 1
    taken.add(anchor)
    return anchor


def _float(value: Any) -> float | None:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    return None


def _run_url(run_id: Any, repository: str | None, server_url: str) -> str | None:
    if repository is None or not isinstance(run_id, int) or isinstance(run_id, bool):
        return None
    return f"{server_url.rstrip('/')}/{quote(repository)}/actions/runs/{run_id}"


def _view(
    report: ReportJson,
    links: IssueLinks,
    repository: str | None,
    server_url: str,
    taken: set[str],
    y_zero: bool = False,
) -> VariantView:
    variant = str(report.get("variant") or report.get("artifact"))
    artifact = str(report.get("artifact") or "")
    by_date = {
        date: url
        for (name, date), url in links.items()
        if name in (variant, artifact) and safe_url(url)
    }
    days = [
        DayRow(
            date=str(day.get("date", "")),
            size_mb=_float(day.get("size_mb")),
            delta_mb=_float(day.get("delta_mb")),
            status=str(day.get("status") or "ok"),
            artifact=artifact_label(day),
            run_url=_run_url(day.get("run_id"), repository, server_url),
        )
        for day in report.get("days") or []
    ]
    jumps = [
        JumpRow(
            date=str(jump.get("date", "")),
            delta_mb=_float(jump.get("delta_mb")),
            size_mb=_float(jump.get("size_mb")),
            url=by_date.get(str(jump.get("date", ""))),
        )
        for jump in report.get("jumps") or []
    ]
    observations = [o for o in report.get("observations") or [] if isinstance(o, Mapping)]
    with_size = [d for d in days if d.size_mb is not None]
    return VariantView(
        variant=variant,
        anchor=_anchor(variant, taken),
        report=report,
        chart=build_chart(report, by_date, y_zero=y_zero),
        jumps=jumps,
        days=days,
        recent=list(reversed(days[-_RECENT_DAYS:])),
        breakdown=days[-_BREAKDOWN_DAYS:],
        latest=with_size[-1] if with_size else None,
        observations=observations,
        build_chart=build_time_chart(report),
        numbers=numbers_view(report),
    )


def render_dashboard(
    reports: Sequence[ReportJson],
    issue_links: IssueLinks | None = None,
    *,
    repository: str | None = None,
    server_url: str = "https://github.com",
    generated_at: dt.datetime | None = None,
    title: str | None = None,
    y_zero: bool = False,
) -> str:
    """Render the whole page; every string from the API is escaped by the template."""
    server_url = safe_url(server_url) or "https://github.com"
    taken: set[str] = set()
    views = [_view(r, issue_links or {}, repository, server_url, taken, y_zero) for r in reports]
    generated = generated_at or dt.datetime.now(dt.timezone.utc)
    nights = [str(d.get("date")) for r in reports for d in r.get("days") or () if d.get("date")]
    return render(
        "dashboard.html.j2",
        title=title or (f"Wheel sizes — {repository}" if repository else "Wheel sizes"),
        repository=repository,
        repository_url=f"{server_url.rstrip('/')}/{quote(repository)}" if repository else None,
        generated=generated.strftime("%Y-%m-%d %H:%M UTC"),
        newest=max(nights, default=None),
        views=views,
    )


# The page's one line that changes with the clock alone (templates/dashboard.html.j2).
_GENERATED = re.compile(r'<span class="generated">[^<]*</span>')


def same_page(old: str, new: str) -> bool:
    """Do two renderings differ only in their generation time? Then the stored page stays
    (re-running a night commits nothing) and keeps the time its content was drawn."""
    return _GENERATED.sub("", old) == _GENERATED.sub("", new)


def write_dashboard(path: Path, html: str) -> None:
    """Write ``html`` to ``path`` atomically: a reader never sees half a page."""
    atomic_write_text(path, html)
