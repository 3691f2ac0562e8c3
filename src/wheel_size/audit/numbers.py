"""The audit's priced findings beside its verdicts: debug information and symbol tables
(what ``strip`` would save, :mod:`wheel_size.native.debuginfo`), vendored libraries and the
ones shipped twice (:mod:`wheel_size.audit.vendored`)."""

from __future__ import annotations

from collections import defaultdict

from wheel_size.audit.document import AuditNumbersDocument, StripDocument, VendoredDocument
from wheel_size.audit.matrix import AuditReport
from wheel_size.audit.vendored import VendoredLibrary, shipped_twice, vendored
from wheel_size.render import render

__all__ = ["StripDocument", "numbers_json", "numbers_markdown"]

# A library whose strip would save less than this is not listed (a few section headers).
MIN_SAVING_BYTES = 4096


def _strip_rows(report: AuditReport) -> list[StripDocument]:
    rows: list[StripDocument] = []
    for wheel in report.wheels:
        for native in wheel.native:
            s = native.strip
            if s is None or s.strip_unneeded < MIN_SAVING_BYTES:
                continue
            rows.append(
                {
                    "wheel": wheel.path,
                    "member": native.path,
                    "debug_sections": dict(sorted(s.debug.items())),
                    "symbol_table_bytes": s.symbols,
                    "strip_debug_bytes": s.strip_debug,
                    "strip_unneeded_bytes": s.strip_unneeded,
                }
            )
    return sorted(rows, key=lambda r: (-r["strip_unneeded_bytes"], r["wheel"], r["member"]))


def numbers_json(report: AuditReport) -> AuditNumbersDocument:
    """``strip``, ``vendored`` and ``shipped_twice`` keys, each only when something was found."""
    out: AuditNumbersDocument = {}
    rows = _strip_rows(report)
    if rows:
        out["strip"] = rows
    libraries = vendored(report.wheels)
    if libraries:
        out["vendored"] = [lib.to_json() for lib in libraries]
        twice: list[list[VendoredDocument]] = [
            [c.to_json() for c in group] for group in shipped_twice(libraries)
        ]
        if twice:
            out["shipped_twice"] = twice
    return out


def _installed_together(group: list[VendoredLibrary]) -> dict[str, object]:
    """What one install holds of a library shipped twice: one wheel per distribution (the
    variants of one distribution are alternatives, never installed together), its copies in
    the wheel holding most of it."""
    per_wheel: dict[str, list[VendoredLibrary]] = defaultdict(list)
    for lib in group:
        per_wheel[lib.wheel].append(lib)
    best: dict[str, list[VendoredLibrary]] = {}
    for wheel, copies in per_wheel.items():
        key = copies[0].distribution or wheel
        if key not in best or sum(c.size for c in copies) > sum(c.size for c in best[key]):
            best[key] = copies
    held = [c for copies in best.values() for c in copies]
    names = sorted({c.distribution for c in held if c.distribution})
    return {
        "copies": group,
        "installed": len(held),
        "installed_bytes": sum(c.size for c in held),
        "distributions": names,
    }


def numbers_markdown(report: AuditReport) -> str:
    libraries = vendored(report.wheels)
    return render(
        "_audit_numbers.md.j2",
        strip=_strip_rows(report),
        vendored=libraries,
        twice=[_installed_together(g) for g in shipped_twice(libraries)],
    )
