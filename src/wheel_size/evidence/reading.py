"""What a wheel diff says about the cause of growth, in one pattern and one sentence.

The readings are the ones a person draws from a bloaty-style breakdown: growth only in
``.nv_fatbin`` spread over every SM architecture means more kernels were instantiated;
growth in architectures the old wheel did not have means the architecture list changed;
growth in ``.text`` means host C++ code; a new file under ``*.libs/`` means a grafted library.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any, Literal

from wheel_size.diff.model import FileDiff, GpuDelta, WheelDiff
from wheel_size.diff.view import human

__all__ = ["DEVICE_SECTIONS", "ContentReading", "read_growth"]

DEVICE_SECTIONS = frozenset({".nv_fatbin", "__nv_relfatbin", ".hip_fatbin"})
_RUNTIMES = (
    "libcudart",
    "libcuda.",
    "libcublas",
    "libcudnn",
    "libnvrtc",
    "libamdhip64",
    "librocblas",
)

Pattern = Literal[
    "kernel-instantiations",
    "new-architectures",
    "device-code",
    "compression-change",
    "host-code",
    "debug-info",
    "new-files",
    "grafted-library",
    "mixed",
    "shrink",
    "none",
]

#: Reading -> the candidate categories (regressions.classify) it supports.
SUPPORTS: dict[str, frozenset[str]] = {
    "kernel-instantiations": frozenset({"cuda-kernels", "cutlass-fbgemm"}),
    "device-code": frozenset({"cuda-kernels", "cutlass-fbgemm"}),
    "new-architectures": frozenset({"compiler-flags", "build-image"}),
    "compression-change": frozenset({"compiler-flags", "build-image"}),
    "host-code": frozenset(
        {"cpp-code", "new-operators", "new-compilation-units", "header-only-library"}
    ),
    "debug-info": frozenset({"compiler-flags", "build-image"}),
    "grafted-library": frozenset({"build-image"}),
}


@dataclass
class ContentReading:
    pattern: Pattern
    sentence: str
    installed_delta: int = 0
    device_delta: int = 0
    top_file: str | None = None
    archs_grown: list[str] = field(default_factory=list)
    archs_added: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "pattern": self.pattern,
            "reading": self.sentence,
            "installed_delta": self.installed_delta,
            "device_delta": self.device_delta,
            "top_file": self.top_file,
            "archs_grown": self.archs_grown,
            "archs_added": self.archs_added,
        }


def _section_delta(files: list[FileDiff], predicate: Any) -> int:
    total = 0
    for item in files:
        total += sum(s.delta for s in item.sections if predicate(s.name))
    return total


def _arch_name(row: GpuDelta) -> str:
    if row.kind == "cuda" and row.image == "ptx":
        return row.arch.replace("sm_", "compute_")
    return row.arch


def read_growth(diffs: list[WheelDiff]) -> ContentReading:
    """One reading for the comparisons of one event (usually a single wheel pair)."""
    files = [f for d in diffs for f in d.files]
    delta = sum(d.total.new_installed - d.total.old_installed for d in diffs)
    if not files:
        return ContentReading("none", "The two wheels have the same contents.", delta)
    if delta <= 0:
        return ContentReading(
            "shrink", f"The wheel's installed size changed by {human(delta, sign=True)}.", delta
        )
    top = max(files, key=lambda f: f.installed_delta)
    device = _section_delta(files, lambda n: n in DEVICE_SECTIONS)
    debug = _section_delta(files, lambda n: n.startswith((".debug", ".zdebug")))
    host = _section_delta(
        files, lambda n: n not in DEVICE_SECTIONS and not n.startswith((".debug", ".zdebug"))
    )
    added = [f for f in files if f.status == "added"]
    added_delta = sum(f.new_installed for f in added)
    reading = ContentReading("mixed", "", delta, device, top.path)

    rows = [g for f in files for g in f.gpu if g.image in ("sass", "code_object")]
    per_arch: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])  # old entries, new, delta
    for row in rows:
        slot = per_arch[_arch_name(row)]
        slot[0] += row.old_entries
        slot[1] += row.new_entries
        slot[2] += row.delta
    both = {a: v for a, v in per_arch.items() if v[0] and v[1]}
    reading.archs_grown = sorted(a for a, v in both.items() if v[2] > 0)
    reading.archs_added = sorted(a for a, v in per_arch.items() if not v[0] and v[1])
    added_arch_delta = sum(per_arch[a][2] for a in reading.archs_added)
    codecs_changed = any(
        g.old_entries and g.new_entries and g.old_compression != g.new_compression
        for f in files
        for g in f.gpu
    )
    where = f"`{top.path}`"

    if device >= 0.6 * delta:
        sections = sorted(
            {s.name for f in files for s in f.sections if s.name in DEVICE_SECTIONS and s.delta > 0}
        )
        in_sections = " and ".join(f"`{s}`" for s in sections)
        if reading.archs_added and added_arch_delta >= 0.5 * device:
            reading.pattern = "new-architectures"
            reading.sentence = (
                f"Most of the growth ({human(added_arch_delta, sign=True)}) is device code for "
                f"architectures the old wheel did not have ({', '.join(reading.archs_added)}): "
                "the architecture list changed."
            )
        elif codecs_changed:
            reading.pattern = "compression-change"
            reading.sentence = (
                f"The device code in {in_sections} changed compression between the nights: "
                "a build-flag change (fatbin compression mode), not new code."
            )
        elif len(both) >= 2 and len(reading.archs_grown) >= 0.75 * len(both):
            reading.pattern = "kernel-instantiations"
            reading.sentence = (
                f"Growth is {human(device, sign=True)} in {in_sections} of {where}, spread over "
                f"every architecture ({', '.join(reading.archs_grown)}): new kernel instantiations."
            )
        else:
            reading.pattern = "device-code"
            grown = ", ".join(reading.archs_grown) or "its architectures"
            reading.sentence = (
                f"Growth is {human(device, sign=True)} in {in_sections} of {where}, "
                f"concentrated in {grown}: architecture-specific kernels."
            )
    elif added and added_delta >= 0.6 * delta:
        grafted = [
            f.path
            for f in added
            if f.path.rsplit("/", 1)[-1].startswith(_RUNTIMES) or ".libs/" in f.path
        ]
        names = ", ".join(f"`{f.path}`" for f in sorted(added, key=lambda f: -f.new_installed)[:3])
        if grafted:
            reading.pattern = "grafted-library"
            libs = ", ".join(f"`{p}`" for p in grafted[:3])
            reading.sentence = (
                "Growth comes from files new in the wheel, among them a bundled runtime "
                f"library ({libs}): check auditwheel's --exclude list."
            )
        else:
            reading.pattern = "new-files"
            reading.sentence = f"Growth comes from files new in the wheel: {names}."
    elif debug >= 0.5 * delta:
        reading.pattern = "debug-info"
        reading.sentence = (
            f"Growth is {human(debug, sign=True)} of debug sections in {where}: "
            "debug information is being shipped."
        )
    elif host >= 0.6 * delta:
        reading.pattern = "host-code"
        reading.sentence = (
            f"Growth is {human(host, sign=True)} of host code and data (not device code) in "
            f"{where}: shared C++ code or build configuration."
        )
    else:
        reading.sentence = (
            f"Growth is spread: {where} grew most ({human(top.installed_delta, sign=True)})."
        )
    return reading
