"""Every ``{{ }}`` in a Markdown template is either made safe by a filter or written by us.

Markdown templates are not autoescaped. A value that came from a commit, a wheel, an artifact,
a branch or a remote error message must go through ``md``, ``code``, ``url`` or
``stripped_line`` (all :func:`~wheel_size.render.safe_markdown.safe_inline`); everything else must
be listed below as ours, with the reason. A new interpolation fails this test until someone
decides which it is.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from jinja2 import nodes

from wheel_size.render.templates import _environment, template_dir

SAFE_FILTERS = {
    "md",
    "code",
    "url",
    "stripped_line",
    "mb",
    "in_mb",
    "size",
    "pct",
    "count",
    "length",
}

# Values our own code writes (numbers formatted by us, dates, enums, markers, sentences
# without outside text, Markdown already rendered by a template), per template.
OURS: dict[str, set[str]] = {
    "action-failure-summary.md.j2": set(),
    "action-summary-truncated.md.j2": set(),
    "_kernel_families.md.j2": set(),  # every value goes through count, code or md
    "_size_limits.md.j2": set(),  # every value goes through code or md
    "build_evidence.md.j2": {
        "r.status",  # CONFIRMED / NOT CONFIRMED / CLEARED / LIKELY
    },
    "check_comment.md.j2": {
        "marker",  # our hidden HTML comment
        "over",  # counts
        "total",
        "compared",
        "unchecked",  # count
        "r.base_date",  # ISO dates from the history
    },
    "skipped-records.md.j2": {"total"},  # count
    "bisect.md.j2": {"marker"},  # our hidden HTML comment
    "audit.md.j2": {
        "count",  # int
        "job_count",  # int
        "w.gpu_files",  # int
        "summary.keep",  # counts
        "summary.drop",
        "summary.fix",
        "v.verdict",  # keep / drop / fix
        "w.kind",  # pure / abi3 / platform
        "w.native",  # int
        "w.extensions",  # int
        "w.size",  # human()
        "f.kind",  # finding kinds are our identifiers
    },
    "diff_by.md.j2": set(),  # every value goes through a filter (diff/by_view.py)
    "bloat.md.j2": set(),  # likewise (kernels/bloat_view.py)
    "diff.md.j2": {
        "c.summary",  # summary_line(): numbers
        "c.old_total",  # human()
        "c.new_total",
        "c.unchanged",  # int
        "f.status",  # added / removed / grown / shrunk
        "f.old_installed",  # human()
        "f.new_installed",
        "f.installed_delta",
        "f.delta",
        "c.more_files",  # int
        "c.more_delta",  # human()
        "s.old",  # human()
        "s.new",
        "s.delta",
        "g.marker",  # [NEW] / [DEL] / ""
        "g.entries",  # "3 → 4"
        "g.old",  # human()
        "g.new",
        "g.delta",
        "g.uncompressed_delta",
        "f.gpu_more",  # int
        "f.strip.old_debug",  # format_size(): what strip would save
        "f.strip.new_debug",
        "f.strip.old_unneeded",
        "f.strip.new_unneeded",
    },
    "content_reading.md.j2": {
        "where",  # set from r.top_file | code, or our words
        "sections",  # set from r.sections | map("code") | join
    },
    "nightly-summary.md.j2": {
        "last",  # dates
        "m.date",
        "nights[0]",
        "nights[Neg]",  # nights[-1]
        "report_periods",  # str(DateRange): dates
        "m.issue",  # issue and run numbers: int
        "i.number",
        "m.run_id",
        "runs",  # int
        "threshold",  # Thresholds.describe()
        "report",  # Markdown rendered by size-report.md.j2 (audited here)
        "skipped",  # Markdown rendered by skipped-records.md.j2
    },
    "regression_evidence.md.j2": {
        "c.summary",  # summary_line(): numbers
        "f.status",
        "f.installed_delta",  # human()
        "f.delta",
        # "<name> <delta>, ...": names made safe by neutralise_cell in evidence/attach.py
        "f.sections",
        "c.more_files",
        "g.entries",
        "g.delta",
        "g.uncompressed_delta",
        "before_run",  # run ids: int
        "after_run",
    },
    "regression_verdict.md.j2": {
        "commit()",  # the template's own macro: its parts go through code/md
        "verdict.commits",  # int
        "verdict.more",  # int
    },
    "regression_issue.md.j2": {
        "marker",  # event_marker(): our key and sizes
        "before.date",  # ISO dates
        "date",
        "threshold",  # Thresholds.describe()
        "label",  # "before" / "after", and the chart's "%m-%d" dates
        "side.date",
        "side.run_id",  # int
        "chart.y_min",  # numbers
        "chart.y_max",
        "chart['values']",  # rounded floats
        "total_commits",  # int
        "c.rank",  # int
        "c.pr",  # int
        "c.categories",  # CATEGORIES titles
        "c.status",  # CONFIRMED / LIKELY / ...
        "candidates_left_out",  # int
        "candidates_total",
        "evidence",  # Markdown rendered by regression_evidence.md.j2 (audited above)
        "build_evidence",  # Markdown rendered by build_evidence.md.j2 (audited here)
        "cc.login",  # opt-in mention: a login checked against GitHub's login syntax
        "unranked_total",  # int
    },
    "silence_issue.md.j2": {
        "marker",  # our hidden HTML comment
        "n.date",  # ISO dates from the history
        "s.since",
        "s.last_seen",
        "n.run_id",  # int
        "s.count",  # int
        "threshold",  # int (--silence-nights)
        "what()",  # the template's own macro: its parts go through code
    },
    "silence_update.md.j2": {
        "marker",  # our hidden HTML comment
        "back.date",  # ISO dates
        "night.date",
        "s.since",
        "back.run_id",  # int
        "night.run_id",
        "s.count",  # int
    },
    "regression_duplicate.md.j2": {
        "marker",  # duplicate_marker(): our own ASCII
        "survivor",  # an issue number
        "why",  # our sentence, no outside text
    },
    "regression_joined.md.j2": {
        "markers",  # event markers of our own: key, dates, sizes
    },
    "regression_joined_note.md.j2": {
        "e.variant",  # read back from our own event markers: our ASCII
    },
    "regression_update.md.j2": {
        "markers",  # update_marker(): our key, dates, sizes
        "r.date",  # ISO dates
        "r.before_date",
        "r.event_date",
    },
    "size-report.md.j2": {
        "j.baseline.grew_after",  # ISO date
        "r.baseline_short[0]",  # ISO dates
        "r.baseline_short[Neg]",
        "r.build_thresholds.baseline.describe()",  # our sentence
        "r.thresholds.baseline.nights_before",  # int
        "item.periods",  # dates
        "t.before",  # a date (report.render._month_turns)
        "t.after",  # a date
        "r.thresholds.describe()",
        "r.start.date",
        "r.end.date",
        "m.month",  # YYYY-MM
        "item.chart.labels",  # quoted dates
        "item.chart.y_min",
        "item.chart.y_max",
        "item.chart.points",  # floats
        "item.chart.width",  # our int (pixels)
        "j.date",
        "d.date",
        "r.thresholds.baseline.describe()",  # our sentence about N nights
        "j.baseline.start_date",  # ISO dates
        "j.baseline.end_date",
        "j.baseline.nights",  # int
        "r.build_thresholds.describe()",  # numbers
        "b.date",  # ISO date
        "b.run_id",  # int
        "r.installed_end.date",  # ISO date
    },
    # issue 34: installed size, forecast, quota, debug info, vendored libraries, deps
    "_forecast.md.j2": {
        "f.nights",  # int
        "f.first",  # ISO dates (report/forecast_doc.py)
        "f.last",
        "f.steps",  # ISO dates, joined
        "c.date",
        "c.earliest",
        "c.latest",
    },
    "_quota.md.j2": {
        "'{:,.2f}'.format()",  # GiB numbers
        "q.stored.releases",  # int
        "q.new_files",  # int
    },
    "_audit_numbers.md.j2": set(),  # every value goes through code, md or size
    "deps.md.j2": set(),  # likewise
    "split_comment.md.j2": {"marker"},  # marker(key): our constant key
    "split_report.md.j2": {
        "report.summary.device_wheels",  # ints
        "report.summary.fat_binaries",
        "report.summary.raw_archs",
        "row.also_downloads",  # int
        "row.wheels",  # the install table's wheel count (int)
        "sections.costlier()",  # Markdown rendered by split_report_sections.md.j2 (audited)
    },
}


# The seed report's sections (issue #13): split_report_sections.md.j2's macros, called from
# split_report.md.j2; each macro's own interpolations are audited in its template.
OURS["split_report_sections.md.j2"] = {
    "caller()",  # the block of key_result(), rendered in this template
    "part()",  # macros of this template
    "saved()",
    "secs()",
    "size()",
    "tree()",
    "num()",
    "'{:,}'.format()",  # integer counts
    "title",  # fold_open("Device wheels", ...): constant titles from split_report.md.j2
    "rows",  # ints
    "t.jobs",
    "t.workers",  # an int: the processes the split ran on
    "opts.compression_level",
    "report.summary.db_only_archs",
    "report.summary.kernel_archs",
    "report.summary.raw_archs",
    "d.level",  # family / sub-family / target / unknown
    "p.level",
    "row.level",
    "row.also_downloads",  # int
}
OURS["split_report.md.j2"] |= {
    "sections.key_result()",  # Markdown rendered by split_report_sections.md.j2 (audited)
    "sections.database_only()",
    "sections.fold_open()",
    "sections.fold_close()",
    "sections.notes()",
    "sections.extraction()",
    "sections.timings()",
    "sections.metadata()",
    "sections.install()",
    "sections.layout()",
}


def _name(node: nodes.Node) -> str:
    if isinstance(node, nodes.Name):
        return node.name
    if isinstance(node, nodes.Getattr):
        return f"{_name(node.node)}.{node.attr}"
    if isinstance(node, nodes.Getitem):
        return f"{_name(node.node)}[{_name(node.arg)}]"
    if isinstance(node, nodes.Const):
        return repr(node.value)
    if isinstance(node, nodes.Call):
        return f"{_name(node.node)}()"
    if isinstance(node, nodes.Filter):
        return f"{_name(node.node) if node.node else ''}|{node.name}"
    return type(node).__name__


def _numeric_format(node: nodes.Filter) -> bool:
    """``"%.1f" | format(x)``: a number formatted by us."""
    fmt = node.node
    return isinstance(fmt, nodes.Const) and "%s" not in str(fmt.value)


def unsafe(node: nodes.Node, ours: set[str]) -> Iterator[str]:
    """The parts of an output expression that neither a filter nor our list vouches for."""
    if isinstance(node, nodes.Const):
        return
    if isinstance(node, nodes.Filter):
        if node.name in SAFE_FILTERS:
            return
        if node.name == "format" and _numeric_format(node):
            return
        inner = node.node
        if (
            node.name == "join"
            and isinstance(inner, nodes.Filter)
            and inner.name == "map"
            and inner.args
            and isinstance(inner.args[0], nodes.Const)
            and inner.args[0].value in SAFE_FILTERS
        ):
            return  # each item through a safe filter, joined by a constant
        if node.name in ("replace", "join") and inner is not None:
            if _name(node) in ours:
                return
            yield from unsafe(inner, ours)
            return
    if isinstance(node, nodes.CondExpr):
        yield from unsafe(node.expr1, ours)
        if node.expr2 is not None:
            yield from unsafe(node.expr2, ours)
        return
    if isinstance(node, (nodes.Or, nodes.And, nodes.Add, nodes.Concat)):
        parts = node.nodes if isinstance(node, nodes.Concat) else [node.left, node.right]
        for part in parts:
            yield from unsafe(part, ours)
        return
    if isinstance(node, (nodes.Sub, nodes.Mul, nodes.Div, nodes.FloorDiv)):
        return  # arithmetic: a number
    name = _name(node)
    if name not in ours:
        yield name


def markdown_templates() -> list[str]:
    return sorted(p.name for p in template_dir().glob("*.md.j2"))


def test_every_markdown_template_is_audited() -> None:
    assert set(markdown_templates()) - {"data-branch-readme.md.j2"} == set(OURS)


def interpolations(source: str, ours: set[str]) -> list[str]:
    """What is interpolated without a safe filter and is not in ``ours``."""
    tree = _environment().parse(source)
    return [
        part
        for out in tree.find_all(nodes.Output)
        for expr in out.nodes
        if not isinstance(expr, nodes.TemplateData)
        for part in unsafe(expr, ours)
    ]


@pytest.mark.parametrize("name", markdown_templates())
def test_untrusted_values_go_through_the_filter(name: str) -> None:
    source = (template_dir() / name).read_text()
    ours = OURS.get(name, set())
    unvouched = sorted(set(interpolations(source, ours)))
    assert unvouched == [], f"{name}: route these through md/code/url/stripped_line or list as ours"
    # The list holds nothing the template no longer uses.
    assert set(interpolations(source, set())) == ours


def test_the_audit_catches_a_forgotten_filter() -> None:
    source = "| {{ c.title }} | {{ c.title | md }} | {{ n | mb }} | {{ x or y | code }} |"
    assert interpolations(source, set()) == ["c.title", "x"]
