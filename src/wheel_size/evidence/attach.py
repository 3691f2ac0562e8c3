"""Put the content evidence into a regression investigation: a Markdown section, its JSON,
and stronger statuses for candidates whose kind of change the wheels' contents confirm."""

from __future__ import annotations

import dataclasses
from typing import TypedDict

from wheel_size.diff.model import GpuDelta
from wheel_size.diff.view import summary_line
from wheel_size.evidence.collect import Evidence
from wheel_size.evidence.document import FamilyLine
from wheel_size.evidence.families import families_context
from wheel_size.evidence.reading import SUPPORTS, ContentReading, support_text
from wheel_size.regressions.investigation import Investigation
from wheel_size.regressions.ranking.classify import CATEGORIES
from wheel_size.regressions.ranking.evidence import CLEARED, CONFIRMED, LIKELY, Status
from wheel_size.render import render
from wheel_size.render.safe_markdown import neutralise, neutralise_cell
from wheel_size.units import format_size

__all__ = ["attach_evidence", "evidence_markdown"]

_FILES = 6
_GPU_ROWS = 10


class _GpuRow(TypedDict):
    arch: str
    image: str
    section: str
    entries: str
    delta: str
    uncompressed_delta: str


class _FileRow(TypedDict):
    path: str
    status: str
    installed_delta: str
    delta: str
    sections: str


class _Comparison(TypedDict):
    name: str
    summary: str
    files: list[_FileRow]
    more_files: int
    device_file: str | None
    gpu: list[_GpuRow]


class _Evidence(TypedDict):
    available: bool
    reason: str
    before_run: int | None
    after_run: int | None
    artifact: str
    comparisons: list[_Comparison]


class EvidenceView(_Evidence, total=False):
    """The context of ``regression_evidence.md.j2`` (text made safe, sizes formatted)."""

    reading: ContentReading  # content_reading.md.j2 words it
    families: list[FamilyLine]
    families_more: int
    families_more_delta: str
    families_note: str


def _cell(text: str) -> str:
    return neutralise_cell(text.replace("`", "'"), max_chars=120)


def _gpu(row: GpuDelta) -> _GpuRow:
    arch = (
        row.arch.replace("sm_", "compute_")
        if row.kind == "cuda" and row.image == "ptx"
        else row.arch
    )
    return {
        "arch": _cell(arch),
        "image": row.image,
        "section": _cell(row.section),
        "entries": f"{row.old_entries} → {row.new_entries}",
        "delta": format_size(row.delta, signed=True),
        "uncompressed_delta": format_size(row.uncompressed_delta, signed=True),
    }


def _context(evidence: Evidence) -> EvidenceView:
    before, after = evidence.before, evidence.after
    context: EvidenceView = {
        "available": evidence.available,
        "reason": neutralise(evidence.unavailable or ""),
        "before_run": before.run_id,
        "after_run": after.run_id,
        "artifact": _cell(after.artifact or ""),
        "comparisons": [],
    }
    if evidence.report is None or evidence.reading is None:
        return context
    context["reading"] = evidence.reading
    kernel = families_context(evidence.families, evidence.families_note)
    context["families"] = kernel["families"]
    context["families_more"] = kernel["families_more"]
    context["families_more_delta"] = kernel["families_more_delta"]
    context["families_note"] = kernel["families_note"]
    omitted = evidence.files_omitted
    for index, diff in enumerate(evidence.report.comparisons):
        files = diff.files[:_FILES]
        total_files = len(diff.files) + (omitted[index] if index < len(omitted) else 0)
        device_file = next((f for f in diff.files if f.gpu), None)
        rows = []
        if device_file is not None:
            changed = [g for g in device_file.gpu if g.delta or g.uncompressed_delta]
            rows = [_gpu(g) for g in changed[:_GPU_ROWS]]
        context["comparisons"].append(
            {
                "name": _cell(diff.new.rsplit("!", 1)[-1].rsplit("/", 1)[-1]),
                "summary": summary_line(diff),
                "files": [
                    {
                        "path": _cell(f.path),
                        "status": f.status,
                        "installed_delta": format_size(f.installed_delta, signed=True),
                        "delta": format_size(f.delta, signed=True),
                        "sections": ", ".join(
                            f"{_cell(s.name)} {format_size(s.delta, signed=True)}"
                            for s in f.sections[:3]
                        ),
                    }
                    for f in files
                ],
                "more_files": max(0, total_files - _FILES),
                "device_file": _cell(device_file.path) if device_file else None,
                "gpu": rows,
            }
        )
    return context


def evidence_markdown(evidence: Evidence) -> str:
    """The "Wheel contents" section of a regression issue (already safe to post)."""
    return render("regression_evidence.md.j2", **_context(evidence))


def attach_evidence(inv: Investigation, evidence: Evidence) -> Investigation:
    """Fill ``inv``'s evidence fields and strengthen candidates the contents support.

    A candidate whose categories fit the reading (e.g. ``cuda-kernels`` for growth spread
    over every SM architecture) becomes LIKELY; CONFIRMED and CLEARED are left alone, and no
    status is weakened: the contents say what kind of code grew, not which commit did it.
    """
    inv.evidence_markdown = evidence_markdown(evidence)
    # Investigation (regressions/) holds it as a plain dict until it takes EvidenceDocument.
    inv.evidence_json = evidence.to_json()
    reading = evidence.reading
    if reading is None or reading.pattern not in SUPPORTS:
        return inv
    supported = SUPPORTS[reading.pattern]
    updated = []
    for candidate in inv.candidates:
        status = candidate.code()  # the code's status: builds are applied in settle()
        fits = supported & set(candidate.classified.categories)
        if fits and status.status not in (CONFIRMED, CLEARED):
            text = support_text(reading, sorted(CATEGORIES[c].title for c in fits))
            if status.status == LIKELY:
                text = f"{status.evidence}; {text}"
            code = Status(LIKELY, text)
            shown = code if candidate.code_status is None else candidate.status
            candidate = dataclasses.replace(candidate, status=shown, code_status=code)
        updated.append(candidate)
    inv.candidates = updated
    return inv
