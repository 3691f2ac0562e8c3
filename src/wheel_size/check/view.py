"""Shape a :class:`~wheel_size.check.run.CheckResult` for the pull-request comment template.

Untrusted text (wheel and artifact names) is made safe for Markdown here; numbers stay numbers
(MB = 1,048,576 bytes) and the template formats them with the ``mb`` filter.
"""

from __future__ import annotations

from typing import Literal, TypedDict

from wheel_size.check.budget import Breach, Budget
from wheel_size.check.limits import acknowledged_by
from wheel_size.check.run import CheckResult, WheelCheck
from wheel_size.diff.view import DiffView, diff_view
from wheel_size.evidence.document import FamiliesView
from wheel_size.evidence.families import families_context
from wheel_size.units import MB, format_mb, format_size

__all__ = ["BreachView", "CheckRow", "CheckView", "check_view"]


class BreachView(TypedDict):
    text: str
    accepted: bool


class CheckRow(TypedDict):
    """One wheel's row: sizes in MB (numbers; the template's ``mb`` filter formats them)."""

    variant: str
    wheel: str
    size_mb: float
    base_mb: float | None
    base_date: str | None
    base_run: int | None
    base_run_url: str | None
    base_basis: str | None
    delta_mb: float | None
    delta_pct: float | None
    breaches: list[BreachView]
    failing: bool
    standing: list[str]
    notes: list[str]
    diff: DiffView | None
    kernel: FamiliesView
    installed_mb: float | None  # this wheel unpacked
    base_installed_mb: float | None  # the nightly's, when known


class CheckView(TypedDict):
    """The context of the pull-request comment (``check_comment.md.j2``)."""

    verdict: Literal["fail", "acknowledged", "pass", "partial", "unchecked"]
    conclusion: str  # the check run's: success, failure or neutral
    unchecked: int  # wheels compared with no stored night
    over: int
    total: int
    compared: int
    rows: list[CheckRow]
    notes: list[str]
    acknowledgement: str | None
    ceiling_ack: str | None
    footer_helps: bool
    pypi_refuses: bool
    warnings: list[str]
    budget: list[str]
    has_ceiling: bool
    footer: str
    merge_base_night: bool


def _limit(limit: int) -> str:
    """A configured limit in MB, with the decimals it was given with (``850.0``, ``0.001``)."""
    mb = limit / MB
    digits = next((d for d in (1, 2, 3, 4, 6) if abs(round(mb, d) - mb) * MB < 1), 6)
    return format_mb(mb, digits=digits)


def _limit_mb(limit_mb: float) -> str:
    """A configured limit given in MB, shown as its breach is (:func:`_limit`)."""
    return _limit(round(limit_mb * MB))


def _over(size: int, limit: int) -> tuple[str, str]:
    """``size`` and ``limit`` in MB with enough decimals to tell them apart."""
    shown = _limit(limit)
    digits = max(1, len(shown.rpartition(".")[2]))
    while round(size / MB, digits) <= limit / MB and digits < 6:
        digits += 1
    return format_mb(size / MB, digits=digits), shown


def breach_text(breach: Breach, check: WheelCheck) -> str:
    """One breach in words, as the comment and the log say it."""
    if breach.kind == "growth-pct":
        return f"over the +{breach.limit_pct:g} % growth budget"
    limit = breach.limit_bytes or 0
    if breach.kind == "pypi":
        size, most = _over(check.wheel.size, limit)
        return f"PyPI will refuse this upload: {size} MB is over PyPI's {most} MB file-size limit"
    if breach.kind == "ceiling" and breach.base_over and check.base is not None:
        return (
            f"over the {_limit(limit)} MB ceiling and grows the wheel by "
            f"{format_size(check.delta or 0, signed=True)}; the nightly of {check.base.date} "
            "was already over it"
        )
    if breach.kind == "growth":
        return f"over the +{_limit(limit)} MB growth budget"
    return f"over the {_limit(limit)} MB ceiling"


def standing_texts(check: WheelCheck) -> list[str]:
    """The ceilings the nightly already exceeds and this pull request leaves as they were."""
    if check.base is None:
        return []
    texts = []
    for standing in check.standing:
        base, limit = _over(standing.base_bytes, standing.limit_bytes)
        texts.append(
            f"the nightly of {check.base.date} is already over the {limit} MB ceiling "
            f"({base} MB); this pull request does not grow it"
        )
    return texts


def _row(check: WheelCheck, result: CheckResult, run_url: str | None, diff_limit: int) -> CheckRow:
    base = check.base
    delta = check.delta
    breaches: list[BreachView] = [
        {
            "text": breach_text(b, check),
            "accepted": acknowledged_by(b, result.acknowledgement, result.ceiling_ack) is not None,
        }
        for b in check.breaches
    ]
    return {
        "variant": check.wheel.variant or "—",
        "wheel": check.wheel.path.name,
        "size_mb": check.wheel.size / MB,
        "base_mb": None if check.base_size is None else check.base_size / MB,
        "base_date": base.date.isoformat() if base else None,
        "base_run": base.run.run_id if base else None,
        "base_run_url": f"{run_url}/{base.run.run_id}" if base and run_url else None,
        "base_basis": check.base_basis,
        "delta_mb": None if delta is None else delta / MB,
        "delta_pct": None
        if delta is None or not check.base_size
        else 100 * delta / check.base_size,
        "breaches": breaches,
        "failing": any(not b["accepted"] for b in breaches),
        "standing": standing_texts(check),
        "notes": list(check.notes),
        "diff": diff_view(check.diff, limit=diff_limit) if check.diff is not None else None,
        "kernel": families_context(check.families, check.families_note),
        "installed_mb": None if check.installed_bytes is None else check.installed_bytes / MB,
        "base_installed_mb": None
        if check.base_installed_bytes is None
        else check.base_installed_bytes / MB,
    }


def _budget_text(budget: Budget) -> list[str]:
    parts = []
    if budget.growth_mb is not None:
        parts.append(f"growth up to +{_limit_mb(budget.growth_mb)} MB per wheel")
    if budget.growth_pct is not None:
        parts.append(f"growth up to +{budget.growth_pct:g} %")
    if budget.ceiling_mb is not None:
        parts.append(f"size up to {_limit_mb(budget.ceiling_mb)} MB")
    parts += [f"{v} up to {_limit_mb(mb)} MB" for v, mb in sorted(budget.ceilings.items())]
    if budget.pypi_limit_mb is not None:
        parts.append(f"PyPI's file-size limit of {_limit_mb(budget.pypi_limit_mb)} MB")
    return parts


def check_view(
    result: CheckResult,
    budget: Budget,
    *,
    run_url: str | None = None,
    footer: str = "Wheel-Size",
    diff_limit: int = 15,
    warnings: list[str] | None = None,
) -> CheckView:
    """The comment's context: a verdict, a row per wheel, notes and the budget in words.

    ``run_url`` is the base URL of the nightly repository's runs
    (``https://github.com/OWNER/NAME/actions/runs``), for links to the compared night.
    """
    rows = [_row(c, result, run_url, diff_limit) for c in result.checks]
    compared = [c for c in result.checks if c.base_size is not None]
    breaches = [b for c in result.checks for b in c.breaches]
    unaccepted = [
        b for c in result.checks for b in c.unaccepted(result.acknowledgement, result.ceiling_ack)
    ]
    verdict: Literal["fail", "acknowledged", "pass", "partial", "unchecked"]
    if result.failed:
        verdict = "fail"
    elif result.over_budget:
        verdict = "acknowledged"
    elif not compared:
        verdict = "unchecked"  # never ✅ on what was not compared (issue 29 item 2)
    elif result.not_checked:
        verdict = "partial"
    else:
        verdict = "pass"
    return {
        "verdict": verdict,
        "conclusion": result.conclusion,
        "unchecked": len(result.not_checked),
        "over": len(result.failing) if result.failed else len(result.over_budget),
        "total": len(result.checks),
        "compared": len(compared),
        "rows": rows,
        "notes": list(result.notes),
        "acknowledgement": result.acknowledgement
        if any(acknowledged_by(b, result.acknowledgement, None) for b in breaches)
        else None,
        "ceiling_ack": result.ceiling_ack
        if any(b.kind == "ceiling" and not result.acknowledgement for b in breaches)
        else None,
        "footer_helps": any(b.kind != "pypi" for b in unaccepted),
        "pypi_refuses": any(b.kind == "pypi" for b in unaccepted),
        "warnings": list(warnings or []),
        "budget": _budget_text(budget),
        "has_ceiling": budget.ceiling_mb is not None or bool(budget.ceilings),
        "footer": footer,
        "merge_base_night": bool(result.compared_with and result.compared_with["date"]),
    }
