"""The issue body is rendered from one typed context (issue 33 item 2): ``IssueContext`` says
every value ``regression_issue.md.j2`` reads, ``issue_context`` builds exactly those, and
the template reads nothing else (as each JSON document's TypedDict agrees with its schema)."""

from __future__ import annotations

import typing

from jinja2 import meta
from test_issue_body import investigation

from wheel_size.regressions.issues.context import (
    CandidateRow,
    IssueContext,
    VerdictContext,
    issue_context,
    verdict_context,
)
from wheel_size.render.templates import _environment, template_dir


def _reads(name: str) -> set[str]:
    """The top-level names a template reads (its own ``set``/loop names left out)."""
    source = (template_dir() / name).read_text(encoding="utf-8")
    return meta.find_undeclared_variables(_environment().parse(source))


def test_the_template_reads_exactly_the_typed_context() -> None:
    declared = set(typing.get_type_hints(IssueContext))
    assert _reads("regression_issue.md.j2") == declared


def test_the_context_built_has_every_declared_key_and_no_other() -> None:
    inv = investigation(14)
    context = issue_context(
        inv,
        marker="",
        repo_url="https://github.com/o/r",
        reproduce=None,
        accepted_label="size-accepted",
        threshold="1 MB",
        shown=12,
    )
    assert set(context) == set(typing.get_type_hints(IssueContext))
    assert len(context["candidates"]) == 10 and len(context["more_candidates"]) == 2
    assert context["candidates_left_out"] == 2
    row_keys = set(typing.get_type_hints(CandidateRow))
    assert all(set(row) == row_keys for row in context["candidates"])


def test_each_verdict_kind_is_a_declared_shape() -> None:
    """The verdict template reads ``verdict`` only; each kind is one TypedDict of the union
    and what ``verdict_context`` builds has that TypedDict's keys."""
    assert _reads("regression_verdict.md.j2") == {"verdict"}
    shapes = {
        typing.get_type_hints(shape)["kind"].__args__[0]: set(typing.get_type_hints(shape))
        for shape in typing.get_args(VerdictContext)
    }
    assert set(shapes) == {"confirmed", "bracket", "bisecting", "leading", "unclear"}
    found = verdict_context(investigation(14))
    assert found is not None
    assert set(found) == shapes[found["kind"]]
