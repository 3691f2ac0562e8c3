"""Shape a :class:`~wheel_size.kernels.bloat.BloatReport` for ``templates/bloat.md.j2``
and for JSON (sizes through :mod:`wheel_size.units` in the text; raw bytes in JSON)."""

from __future__ import annotations

from typing import TypedDict

from wheel_size.kernels.bloat import BloatReport
from wheel_size.units import format_size

__all__ = [
    "BloatContext",
    "BloatDocument",
    "DuplicateDocument",
    "DuplicateLine",
    "FamilyDocument",
    "FamilyLine",
    "TwinDocument",
    "TwinLine",
    "bloat_json",
    "bloat_view",
]


class DuplicateLine(TypedDict):
    library: str
    arch: str
    name: str
    copies: int
    size: str
    saving: str


class FamilyLine(TypedDict):
    name: str
    bytes: str
    instantiations: int
    archs: int


class TwinLine(TypedDict):
    library: str
    arch: str
    twin: str
    functions: int
    saving: str


class BloatContext(TypedDict):
    """What ``templates/bloat.md.j2`` is rendered with (sizes already formatted)."""

    wheel: str
    code_bytes: str
    dup_saving: str
    duplicates: list[DuplicateLine]
    more_duplicates: int
    families: list[FamilyLine]
    twin_saving: str
    twins: list[TwinLine]
    more_twins: int
    problems: list[str]


class DuplicateDocument(TypedDict):
    library: str
    arch: str
    name: str
    size: int
    copies: int
    saving: int


class FamilyDocument(TypedDict):
    family: str
    bytes: int
    instantiations: int
    archs: list[str]


class TwinDocument(TypedDict):
    library: str
    arch: str
    twin: str
    functions: int
    saving: int


class BloatDocument(TypedDict):
    """``wheel-size bloat --format json`` (bytes as integers)."""

    wheel: str
    code_bytes: int
    duplicates: list[DuplicateDocument]
    families: list[FamilyDocument]
    twins: list[TwinDocument]
    problems: list[str]


def _member(library: str, wheel: str) -> str:
    return library.removeprefix(f"{wheel}:")


#: characters of a kernel name a table cell shows (the template's ``code(160)``)
NAME_CHARS = 160


def distinct_names(names: list[str], limit: int = NAME_CHARS) -> list[str]:
    """Each name as a table cell shows it, at most ``limit`` characters, so that distinct
    names never read the same: a name whose first ``limit`` characters equal another's
    (CUTLASS instantiations share kilobytes of prefix) is shown from a little before the
    first character where it differs from each of them, behind an ellipsis."""
    heads: dict[str, list[str]] = {}
    for name in names:
        heads.setdefault(name[:limit], []).append(name)
    shown = []
    for name in names:
        rivals = [other for other in heads[name[:limit]] if other != name]
        if len(name) <= limit or not rivals:
            shown.append(name)
            continue
        differs = min(
            next(
                (i for i, (a, b) in enumerate(zip(name, other, strict=False)) if a != b), len(other)
            )
            for other in rivals
        )
        start = max(0, differs - limit // 4)
        window = name[start : start + limit - 2]
        shown.append(
            ("…" if start else "") + window + ("…" if start + limit - 2 < len(name) else "")
        )
    return shown


def bloat_view(report: BloatReport, *, top: int = 20) -> BloatContext:
    """Template context: the top ``top`` of each list and what the rest adds up to."""
    dups, twins = report.duplicates, report.twins
    shown = distinct_names([d.name for d in dups[:top]])
    return {
        "wheel": report.wheel,
        "code_bytes": format_size(report.code_bytes),
        "dup_saving": format_size(sum(d.saving for d in dups)),
        "duplicates": [
            {
                "library": _member(d.library, report.wheel),
                "arch": d.arch,
                "name": name,
                "copies": d.copies,
                "size": format_size(d.size),
                "saving": format_size(d.saving),
            }
            for d, name in zip(dups[:top], shown, strict=True)
        ],
        "more_duplicates": max(0, len(dups) - top),
        "families": [
            {
                "name": f.family,
                "bytes": format_size(f.bytes),
                "instantiations": len(f.names),
                "archs": len(f.archs),
            }
            for f in report.families[:top]
        ],
        "twin_saving": format_size(sum(t.saving for t in twins)),
        "twins": [
            {
                "library": _member(t.library, report.wheel),
                "arch": t.arch,
                "twin": t.twin,
                "functions": t.functions,
                "saving": format_size(t.saving),
            }
            for t in twins[:top]
        ],
        "more_twins": max(0, len(twins) - top),
        "problems": report.problems,
    }


def bloat_json(report: BloatReport) -> BloatDocument:
    """The report as JSON data (bytes as integers)."""
    return {
        "wheel": report.wheel,
        "code_bytes": report.code_bytes,
        "duplicates": [
            {
                "library": _member(d.library, report.wheel),
                "arch": d.arch,
                "name": d.name,
                "size": d.size,
                "copies": d.copies,
                "saving": d.saving,
            }
            for d in report.duplicates
        ],
        "families": [
            {
                "family": f.family,
                "bytes": f.bytes,
                "instantiations": len(f.names),
                "archs": sorted(f.archs),
            }
            for f in report.families
        ],
        "twins": [
            {
                "library": _member(t.library, report.wheel),
                "arch": t.arch,
                "twin": t.twin,
                "functions": t.functions,
                "saving": t.saving,
            }
            for t in report.twins
        ],
        "problems": report.problems,
    }
