"""Rows for the audit's Markdown template."""

from __future__ import annotations

from typing import TypedDict

from wheel_size.audit.arch_coverage import arch_order
from wheel_size.audit.document import (
    AuditSummary,
    FindingRow,
    NameCollisionRow,
    RedundantGroupRow,
    VerdictRow,
)
from wheel_size.audit.matrix import AuditReport
from wheel_size.render.safe_markdown import plain_cell as cell
from wheel_size.units import format_size as human

__all__ = ["AuditView", "audit_view"]


class WheelView(TypedDict):
    path: str
    labels: str
    tags: str
    kind: str
    glibc: str
    native: int
    extensions: int
    gpu_files: int
    archs: str
    size: str


class DisableView(TypedDict):
    job: str
    wheels: list[str]
    reason: str


class AuditView(TypedDict):
    """The template context of the audit's Markdown: the document's rows with every name
    from the wheels made a safe table cell."""

    summary: AuditSummary
    count: int
    job_count: int
    wheels: list[WheelView]
    groups: list[RedundantGroupRow]
    collisions: list[NameCollisionRow]
    findings: list[FindingRow]
    verdicts: list[VerdictRow]
    disable: list[DisableView]


def audit_view(report: AuditReport) -> AuditView:
    data = report.to_json()
    wheels: list[WheelView] = []
    for wheel in report.wheels:
        archs = sorted(
            {a for n in wheel.native for a in n.gpu_archs}
            | {a for g in wheel.gpu_files for a in g.archs},
            key=arch_order,
        )
        labels = [
            x for x in (wheel.local_label and f"+{wheel.local_label}", wheel.variant_label) if x
        ]
        wheels.append(
            {
                "path": cell(wheel.path),
                "labels": ", ".join(labels) or "—",
                "tags": ", ".join(sorted({str(t) for t in wheel.name.tags})) if wheel.name else "?",
                "kind": "pure" if wheel.pure else ("abi3" if wheel.abi3 else "platform"),
                "glibc": wheel.glibc_floor or "—",
                "native": len(wheel.native),
                "extensions": sum(n.kind == "extension" for n in wheel.native),
                # every file that carries GPU code: native files with device code, kpack
                # archives and other GPU files (the archs column lists what they hold)
                "gpu_files": sum(bool(n.gpu_archs) for n in wheel.native) + len(wheel.gpu_files),
                "archs": ", ".join(archs) or "—",
                "size": human(wheel.size),
            }
        )
    for group in data["redundant_groups"]:
        group["members"] = [cell(m) for m in group["members"]]
        group["keep"] = cell(group["keep"])
    for collision in data["name_collisions"]:
        collision["members"] = [cell(m) for m in collision["members"]]
        collision["keep"] = cell(collision["keep"])
        collision["filename"] = cell(collision["filename"])
    for finding in data["findings"]:
        finding["wheels"] = [cell(w) for w in finding["wheels"]]
        finding["detail"] = cell(finding["detail"])
    for verdict in data["verdicts"]:
        verdict["wheel"] = cell(verdict["wheel"])
        verdict["reason"] = cell(verdict["reason"])
    disable: list[DisableView] = [
        {"job": cell(j.job), "wheels": [cell(w) for w in j.wheels], "reason": cell(j.reason)}
        for j in report.jobs_to_disable
    ]
    return {
        "summary": data["summary"],
        "count": len(report.wheels) + len(report.unreadable),
        "job_count": len(report.jobs),
        "wheels": wheels,
        "groups": data["redundant_groups"],
        "collisions": data["name_collisions"],
        "findings": data["findings"],
        "verdicts": data["verdicts"],
        "disable": disable,
    }
