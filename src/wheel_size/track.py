"""The nightly job: collect the newest nights (or a backfill), store them, report, flag jumps.

After the write the history is loaded once into a :class:`~wheel_size.series.SizeSeries`;
the report, the dashboard and (through :attr:`TrackResult.series`) the regression issues
all read it, so they agree on every night and every crossing.

Threshold crossings come out as data (:class:`wheel_size.report.Jump`, with both nights' run
ids, head SHAs and base SHAs) so the regression-issue code and the Action's outputs consume
the same list. Every night this run collected is checked, whatever the report window: a
catch-up after a gap flags a crossing from weeks ago as loudly as last night's. Records
are stored before anything can fail on a variant: a night that was collected is never lost
to a typo in ``--variant``.
"""

from __future__ import annotations

import datetime as dt
import operator
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, TypedDict

from wheel_size.check.budget import CeilingBreach
from wheel_size.check.document import CeilingBreachDocument
from wheel_size.collect.installed import InstalledOptions
from wheel_size.collect.jobs import JobPattern
from wheel_size.collect.runs import WorkflowSource
from wheel_size.collect.trusted import SkippedRun, skipped_line
from wheel_size.dates import DateRange, utc_today
from wheel_size.deps.nightly import NightlyDeps
from wheel_size.errors import InputError, WheelSizeError
from wheel_size.history.history import History
from wheel_size.history.investigations import read_notes
from wheel_size.history.model import RunRecord
from wheel_size.history.store import DirectoryStore, HistoryStore, WriteResult, apply_runs
from wheel_size.ports import WorkflowRuns
from wheel_size.report.build import report_window, reports_for, reports_from_series
from wheel_size.report.document import JumpDocument, PeriodDocument, ReportDocument
from wheel_size.report.forecast import ForecastOptions, with_forecast
from wheel_size.report.model import Jump, Report, Thresholds
from wheel_size.report.render import render_size_report
from wheel_size.series import PREVIOUS_NIGHT_DAYS, SizeSeries, load_series
from wheel_size.series.buildtime import BuildThresholds
from wheel_size.variants import ArtifactNaming

if TYPE_CHECKING:
    from wheel_size.deps.nightly import DepsNight
    from wheel_size.regressions.issues.sync import SyncResult

__all__ = [
    "REPORT_FILE",
    "IssuesDocument",
    "TrackDocument",
    "TrackOptions",
    "TrackResult",
    "collection_ranges",
    "track",
]

# The latest report, rewritten (not appended) at the root of the store on every run.
REPORT_FILE = "report.md"
# With no history at all, the first nightly update looks this far back.
FIRST_RUN_DAYS = 1
# How far back to look for the last stored night (a data branch older than this restarts).
CATCH_UP_LIMIT_DAYS = 400


def utc_now() -> dt.datetime:
    """The wall clock, in UTC (TrackOptions.clock's default)."""
    return dt.datetime.now(dt.timezone.utc)


@dataclass(frozen=True)
class TrackOptions:
    """What one ``track`` run collects, stores and reports (the CLI's flags and the Action's
    inputs both become this; see :mod:`wheel_size.nightly`)."""

    source: WorkflowSource
    variants: Sequence[str] = ("cuda12_8",)
    naming: ArtifactNaming = field(default_factory=ArtifactNaming)
    thresholds: Thresholds = field(default_factory=Thresholds)
    rollback_days: int = 10
    periods: Sequence[DateRange] | None = None  # explicit backfill; None = since the last night
    report_days: int = 30
    records: Sequence[RunRecord] = ()  # from parallel collect jobs
    collect: bool = True
    dashboard: bool = False
    dashboard_days: int = 365  # the charts show this much history, the report report_days
    server_url: str = "https://github.com"
    # (variant, date) -> URL of the jump's regression issue, drawn on the dashboard
    issue_links: Mapping[tuple[str, str], str] = field(default_factory=dict)
    # Days before the first new night the regression-issue step reads (jump + creep, see
    # wheel_size.series.lookback_days); None when no issues are opened. The one history
    # load of the run reaches that far, so the issues read the series the report read.
    issue_lookback_days: int | None = None
    # Build time (--build-time): the job pattern whose jobs each new run's jobs listing is
    # matched against; None = off (no jobs request, records as before).
    jobs: JobPattern | None = None
    build_thresholds: BuildThresholds = field(default_factory=BuildThresholds)
    # Installed size (--installed-size): each new night's artifacts measured from their
    # wheels' central directories (wheel_size.collect.installed); None = off.
    installed: InstalledOptions | None = None
    # The forecast (--forecast): each report's trend and ceiling crossings; None = off.
    forecast: ForecastOptions | None = None
    # The whole download per night (--deps): each new night's watched wheels resolved with
    # their dependencies, stored under deps/; None = off.
    deps: NightlyDeps | None = None
    # The dashboard's "generated" time (injected by tests; the wall clock otherwise).
    clock: Callable[[], dt.datetime] = field(default=utc_now)


class IssuesDocument(TypedDict):
    """The issue numbers the --create-issues step created, updated, left or silenced."""

    created: list[int]
    updated: list[int]
    unchanged: list[int]
    silenced: list[int]


class TrackDocument(TypedDict):
    """``track --json`` (and the action's JSON output): what one nightly run did."""

    collected_runs: int
    ingested_runs: int
    changed_files: list[str]
    commit: str | None
    collected_ranges: list[PeriodDocument]
    regression: bool
    ceiling_exceeded: bool  # a size limit is no jump: said beside "regression"
    ceiling_breaches: list[CeilingBreachDocument]
    ceiling_ack: str | None
    skipped_runs: list[dict[str, str | None]]  # collect.trusted.SkippedRun.to_dict
    jumps: list[JumpDocument]
    reports: list[ReportDocument]
    issues: IssuesDocument | None


@dataclass
class TrackResult:
    collected: list[RunRecord]
    ingested: int
    write: WriteResult
    reports: list[Report]
    # Threshold crossings of the watched variants on every night this invocation collected
    # or ingested, inside the report window or not.
    jumps: list[Jump]
    collected_ranges: list[DateRange]
    report_periods: list[DateRange]
    markdown: str
    # The --create-issues step (wheel_size.regressions): what it did, or why it failed.
    issues: SyncResult | None = None
    issue_error: WheelSizeError | None = None
    # The size series every step of this run read (report, dashboard, regression issues):
    # loaded once, after the write, from what the store now holds.
    series: SizeSeries | None = None
    ingested_runs: Sequence[RunRecord] = ()  # the records of --records / input records
    warnings: list[str] = field(default_factory=list)  # one line each, for the log
    # --deps: nights whose whole download moved because dependency pins moved (one line each)
    deps_events: list[str] = field(default_factory=list)
    # Watched variants over a size limit on their newest night (NightlyOptions.limits).
    ceiling_breaches: list[CeilingBreach] = field(default_factory=list)
    ceiling_ack: str | None = None
    # Listed runs that are not nightlies (another event, a fork's head): never stored.
    skipped_runs: list[SkippedRun] = field(default_factory=list)

    @property
    def skipped_text(self) -> str:
        """The summary line on skipped runs ("skipped 2 runs that are not nightlies: …"), or ""."""
        return skipped_line(self.skipped_runs)

    @property
    def ceiling_failed(self) -> bool:
        """Over a limit and not acknowledged: what ``fail-on-regression`` fails on too."""
        return bool(self.ceiling_breaches) and not self.ceiling_ack

    @property
    def new_nights(self) -> list[dt.date]:
        """The nights this run collected or ingested, oldest first."""
        return sorted({r.date for r in self.collected} | {r.date for r in self.ingested_runs})

    @property
    def nights_outside_report(self) -> list[dt.date]:
        """Collected nights the report window does not show (a catch-up after a gap)."""
        return [d for d in self.new_nights if not any(d in p for p in self.report_periods)]

    @property
    def regression(self) -> bool:
        """A crossing upwards: what should wake someone up (a drop is reported, not alarmed)."""
        return any(j.delta_bytes > 0 for j in self.jumps)

    def to_dict(self) -> TrackDocument:
        return {
            "collected_runs": len(self.collected),
            "ingested_runs": self.ingested,
            "changed_files": list(self.write.changed),
            "commit": self.write.commit,
            "collected_ranges": [
                {"from": str(r.start), "to": str(r.end)} for r in self.collected_ranges
            ],
            "regression": self.regression,
            # a size limit is no jump: said beside "regression", never folded into it
            "ceiling_exceeded": bool(self.ceiling_breaches),
            "ceiling_breaches": [b.to_dict() for b in self.ceiling_breaches],
            "ceiling_ack": self.ceiling_ack,
            "skipped_runs": [s.to_dict() for s in self.skipped_runs],
            "jumps": [j.to_dict() for j in self.jumps],
            "reports": [r.to_dict() for r in self.reports],
            "issues": None
            if self.issues is None
            else {
                "created": list(self.issues.created),
                "updated": list(dict.fromkeys(self.issues.updated)),
                "unchanged": list(dict.fromkeys(self.issues.unchanged)),
                "silenced": list(dict.fromkeys(self.issues.silenced)),
            },
        }


def collection_ranges(
    store: HistoryStore, options: TrackOptions, today: dt.date
) -> list[DateRange]:
    """What to collect: the explicit periods, or every night since the last stored one.

    The last stored night is collected again: its run may have finished or been re-run
    since. Already-complete runs cost no request (see :func:`wheel_size.collect.collect`).
    """
    if options.periods:
        return [DateRange(p.start, min(p.end, today)) for p in options.periods if p.start <= today]
    recent = History.of(
        store.read_runs(today - dt.timedelta(days=CATCH_UP_LIMIT_DAYS), today)
    ).filtered(options.source.repository, [options.source.workflow])
    last = recent.last_date()
    first = last if last is not None else today - dt.timedelta(days=FIRST_RUN_DAYS)
    return [DateRange(min(first, today), today)]


def _report_periods(
    options: TrackOptions, ranges: Sequence[DateRange], runs: Sequence[RunRecord], today: dt.date
) -> list[DateRange]:
    if options.periods:
        return list(options.periods)
    dates = [r.date for r in runs]
    end = max(dates) if dates else max((r.end for r in ranges), default=today)
    return [DateRange(end - dt.timedelta(days=max(options.report_days, 1) - 1), end)]


def track(
    store: HistoryStore,
    options: TrackOptions,
    *,
    github: WorkflowRuns | None = None,
    today: dt.date | None = None,
    on_run: Callable[[RunRecord], None] | None = None,
) -> TrackResult:
    """Collect, store (one commit), report. ``github`` is the GitHub port (see
    :class:`wheel_size.github.port.PyGithubPort`); it may be None with ``collect=False``."""
    from wheel_size.collect.records import collect

    today = today or utc_today()
    ranges = collection_ranges(store, options, today) if options.collect else []
    collected: list[RunRecord] = []
    skipped: list[SkippedRun] = []
    if ranges:
        if github is None:
            raise WheelSizeError("collecting runs needs a GitHub client")
        lo = min(r.start for r in ranges)
        hi = max(r.end for r in ranges)
        known = {r.run_id: r for r in store.read_runs(lo, hi)}
        for r in ranges:
            collected += collect(
                github,
                options.source,
                r.start,
                r.end,
                known=known,
                on_run=on_run,
                jobs=options.jobs,
                skipped=skipped,
            )
    installed_warnings: list[str] = []
    deps_nights: list[DepsNight] = []
    if options.deps is not None and github is not None and collected:
        # first: the artifacts it downloads give their installed size at no second read
        deps_nights = _night_deps(github, collected, options, installed_warnings)
        if options.installed is not None:
            collected = _with_read_sizes(collected, deps_nights)
    if options.installed is not None and github is not None:
        from wheel_size.collect.installed import with_installed_sizes

        collected = [
            with_installed_sizes(
                github, options.source.repository, r, options.installed, installed_warnings
            )
            for r in collected
        ]
    deps_events: list[str] = []
    runs = [*options.records, *collected]
    periods = _report_periods(options, ranges, runs, today)

    new_dates = {d for r in ranges for d in r.days()} | {r.date for r in options.records}
    window = _analysis_window(options, periods, new_dates)

    reports: list[Report] = []
    loaded: list[SizeSeries] = []
    failure: list[WheelSizeError] = []

    def build(root: Path) -> None:
        # The one history load of the run (redone only if a push race moves the tip):
        # the report, the dashboard and the regression issues all read this series.
        store_here = DirectoryStore(root)
        loaded.clear()
        try:
            series = load_series(
                store_here,
                window.start,
                window.end,
                naming=options.naming,
                repository=options.source.repository,
                workflow=options.source.workflow,
            )
            loaded.append(series)
            reports[:] = reports_from_series(
                series,
                options.variants,
                periods,
                thresholds=options.thresholds,
                rollback_days=options.rollback_days,
                repository=options.source.repository,
                build_thresholds=options.build_thresholds,
                where=store_here.description,
                notes=read_notes(store_here),
            )
            reports[:] = _forecasts(reports, options)
        except WheelSizeError as exc:  # stored anyway; raised after the write
            failure[:] = [exc]

    title = report_title(options.source.repository)

    def change(root: Path) -> list[str]:
        result = WriteResult()
        changed = apply_runs(root, runs, result)
        if deps_nights:
            deps_events[:] = _store_deps(root, deps_nights, options, changed)
        build(root)
        # Derived files follow new data (or appear when missing): a night re-run after other
        # nights landed adds no commit of its own.
        if reports and (changed or not (root / REPORT_FILE).exists()):
            changed += _write_if_changed(root / REPORT_FILE, render_size_report(reports, title))
        if options.dashboard and reports and (changed or not (root / "index.html").exists()):
            changed += _write_dashboard(
                root, _dashboard_reports(loaded[0], reports, options), options
            )
        return changed

    dates = sorted({r.date for r in runs})
    span = f"{dates[0]}..{dates[-1]}" if len(dates) > 1 else (str(dates[0]) if dates else "")
    message = f"wheel-size: record {len(runs)} run(s) of {options.source.repository} {span}".strip()
    write = store.update(change, message)
    if failure:
        if ranges and not runs:
            # Name what was asked for, not the scratch directory the report was built in.
            src = options.source
            days = f"{lo}..{hi}" if lo != hi else str(lo)
            on = f" on branch {src.branch}" if src.branch else ""
            but = f" ({skipped_line(skipped)})" if skipped else ""
            raise InputError(
                f"no run of workflow {src.workflow}{on} in {src.repository} created "
                f"{days}{but}; nothing to store or report"
            )
        raise failure[0]
    jumps = _new_jumps(loaded[0], reports, new_dates, options) if loaded else []
    markdown = render_size_report(reports, title)
    return TrackResult(
        collected=collected,
        ingested=len(options.records),
        write=write,
        reports=reports,
        jumps=jumps,
        collected_ranges=ranges,
        report_periods=periods,
        markdown=markdown,
        series=loaded[0] if loaded else None,
        ingested_runs=tuple(options.records),
        warnings=[s.warning() for s in skipped] + installed_warnings + deps_events,
        skipped_runs=skipped,
        deps_events=list(deps_events),
    )


def _night_deps(
    github: WorkflowRuns, runs: Sequence[RunRecord], options: TrackOptions, warnings: list[str]
) -> list[DepsNight]:
    """The resolved sets of the new nights' watched wheels (``--deps``)."""
    from wheel_size.deps.nightly import night_sets
    from wheel_size.ports import ArtifactDownloads

    assert options.deps is not None
    if not hasattr(github, "download_artifact"):
        warnings.append("the whole download: this GitHub client cannot download artifacts")
        return []
    variants = {v: options.naming.artifact(v) for v in options.variants}
    downloads: ArtifactDownloads = github  # type: ignore[assignment]
    repository = options.source.repository
    return night_sets(downloads, repository, runs, variants, options.deps, warnings)


def _with_read_sizes(runs: list[RunRecord], nights: Sequence[DepsNight]) -> list[RunRecord]:
    """``runs`` with the installed sizes the --deps downloads already read."""
    import dataclasses

    sizes = {(n.run_id, n.artifact): n.installed_bytes for n in nights if n.installed_bytes}
    out = []
    for run in runs:
        artifacts = tuple(
            dataclasses.replace(a, installed_bytes=sizes[(run.run_id, a.name)])
            if a.installed_bytes is None and (run.run_id, a.name) in sizes
            else a
            for a in run.artifacts
        )
        out.append(dataclasses.replace(run, artifacts=artifacts))
    return out


def _store_deps(
    root: Path, nights: Sequence[DepsNight], options: TrackOptions, changed: list[str]
) -> list[str]:
    """Write ``deps/<variant>/<date>.json``; the pin-change events against the nights stored
    before them (read first, so a re-run night is not its own baseline)."""
    from wheel_size.deps.nightly import deps_events, stored_path
    from wheel_size.fileio import atomic_write
    from wheel_size.history.treepath import tree_path

    events = deps_events(root, nights, options.thresholds.crossed)
    for night in nights:
        rel = stored_path(night.variant, night.date)
        path = tree_path(root, rel)
        text = night.to_text()
        if not (path.is_file() and path.read_text(encoding="utf-8", errors="replace") == text):
            atomic_write(path, text.encode())
            changed.append(rel)
    return [e.text() for e in events]


def _new_jumps(
    series: SizeSeries, reports: Sequence[Report], new_dates: set[dt.date], options: TrackOptions
) -> list[Jump]:
    """The crossings of the reported variants on every new night, from the run's series.

    The report shows only its window; a catch-up run may have collected months before it,
    and a crossing there must be flagged (outputs, annotations, issues) all the same.
    """
    jumps: list[Jump] = []
    for report in reports:
        points = series.variant(report.variant)
        for span in _spans(new_dates):
            jumps += [
                Jump.of(step, report.variant, points.artifact)
                for step in points.jumps(span.start, span.end, options.thresholds)
            ]
    return jumps


def _spans(days: set[dt.date]) -> list[DateRange]:
    """Consecutive days as ranges (a backfill of several months, or records of a few nights)."""
    spans: list[DateRange] = []
    for day in sorted(days):
        if spans and day - spans[-1].end == dt.timedelta(days=1):
            spans[-1] = DateRange(spans[-1].start, day)
        else:
            spans.append(DateRange(day, day))
    return spans


def _dashboard_period(options: TrackOptions, periods: Sequence[DateRange]) -> DateRange | None:
    """The nights the dashboard charts: ``dashboard_days`` up to the report's newest night."""
    if not periods or options.dashboard_days <= 0:
        return None
    end = max(p.end for p in periods)
    start = min(min(p.start for p in periods), end - dt.timedelta(days=options.dashboard_days - 1))
    return DateRange(start, end)


def _analysis_window(
    options: TrackOptions, periods: Sequence[DateRange], new_dates: set[dt.date]
) -> DateRange:
    """The one stretch of history this run loads: what the report, the dashboard and the
    regression issues each need, together."""
    windows = [report_window(periods, options.thresholds)]
    chart = _dashboard_period(options, periods) if options.dashboard else None
    if chart is not None:
        windows.append(report_window([chart], options.thresholds))
    if new_dates:
        # Every new night is checked for crossings, so the load reaches the night before
        # the first of them (and further back when the regression issues read creep, or
        # the jumps are measured against a baseline of several nights).
        days = max(
            options.issue_lookback_days or 0,
            PREVIOUS_NIGHT_DAYS + options.thresholds.baseline.lookback_days,
        )
        windows.append(DateRange(min(new_dates) - dt.timedelta(days=days), max(new_dates)))
    return DateRange(min(w.start for w in windows), max(w.end for w in windows))


def _forecasts(reports: Sequence[Report], options: TrackOptions) -> list[Report]:
    """``reports`` with their forecasts when asked for (``--forecast``)."""
    if options.forecast is None:
        return list(reports)
    return [with_forecast(r, options.forecast) for r in reports]


def _dashboard_reports(
    series: SizeSeries, reports: Sequence[Report], options: TrackOptions
) -> Sequence[Report]:
    """Reports over the last ``dashboard_days`` up to the report's newest night, from the
    run's series: a chart needs more history than a nightly report shows."""
    chart = _dashboard_period(options, [p for r in reports for p in r.periods])
    if chart is None:
        return reports
    shown = reports_from_series(
        series,
        [r.variant for r in reports],
        [chart],
        thresholds=options.thresholds,
        rollback_days=options.rollback_days,
        repository=options.source.repository,
        build_thresholds=options.build_thresholds,
    )
    return _forecasts(shown, options)


def _write_dashboard(root: Path, reports: Sequence[Report], options: TrackOptions) -> list[str]:
    """index.html at the root of the store, for GitHub Pages; unchanged pages are not rewritten."""
    from wheel_size.dashboard.page import render_dashboard, same_page

    html = render_dashboard(
        [r.to_dict() for r in reports],
        repository=options.source.repository,
        server_url=options.server_url,
        generated_at=options.clock(),  # the true time; the page names its newest night too
        issue_links={**_stored_links(root), **options.issue_links},
    )
    # a page that differs only in that time is not rewritten: re-running a night commits nothing
    return _write_if_changed(root / "index.html", html, same=same_page)


def _stored_links(root: Path) -> dict[tuple[str, str], str]:
    """The issue links the history's investigation notes keep, ``(variant, date) -> URL``:
    a run that lists no issues (no ``--create-issues``) keeps them on the page (issue 29)."""
    from wheel_size.dashboard.page import safe_url
    from wheel_size.history.investigations import read_note_tree

    links: dict[tuple[str, str], str] = {}
    for key, note in read_note_tree(root).items():
        kind, _, rest = key.partition("/")
        variant, _, day = rest.rpartition("/")
        url = safe_url(note.issue_url) if note.issue_url else None
        if kind == "jump" and variant and day and url is not None:
            links[(variant, day)] = url
    return links


def report_title(repository: str) -> str:
    """The heading of the size report of ``repository`` (the data branch's and the run's)."""
    return f"Wheel sizes — {repository}"


def relink_dashboard(
    store: HistoryStore,
    reports: Sequence[Report],
    options: TrackOptions,
    links: dict[tuple[str, str], str],
) -> WriteResult | None:
    """Put the links of regression issues opened *after* the night was stored on the
    dashboard: a second commit, made only on nights that open an issue (issues come after
    the write so that a refused issue never costs the sizes)."""
    import dataclasses

    if not options.dashboard or not reports or dict(links) == dict(options.issue_links):
        return None
    relinked = dataclasses.replace(options, issue_links=dict(links))

    def change(root: Path) -> list[str]:
        # A second commit, maybe on a newer tip (another run may have pushed meanwhile): the
        # page is drawn from what the branch holds now, not from this run's series.
        chart = _dashboard_period(relinked, [p for r in reports for p in r.periods])
        if chart is None:
            return _write_dashboard(root, reports, relinked)
        shown = reports_for(
            DirectoryStore(root),
            [r.variant for r in reports],
            [chart],
            naming=relinked.naming,
            thresholds=relinked.thresholds,
            rollback_days=relinked.rollback_days,
            build_thresholds=relinked.build_thresholds,
            repository=relinked.source.repository,
            workflow=relinked.source.workflow,
        )
        return _write_dashboard(root, _forecasts(shown, relinked), relinked)

    return store.update(change, "wheel-size: link the dashboard to new regression issues")


def _write_if_changed(
    path: Path, text: str, *, same: Callable[[str, str], bool] = operator.eq
) -> list[str]:
    """Write ``text`` atomically unless the file already holds it, or what ``same`` takes
    for it (no empty commits)."""
    from wheel_size.fileio import atomic_write
    from wheel_size.history.treepath import tree_path

    path = tree_path(path.parent, path.name)  # a planted link is replaced, never followed
    if path.is_file() and same(path.read_text(encoding="utf-8", errors="replace"), text):
        return []
    atomic_write(path, text.encode())
    return [path.name]
