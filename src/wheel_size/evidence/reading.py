"""What a wheel diff says about the cause of growth: one pattern and the numbers behind it.

The readings are the ones a person draws from a bloaty-style breakdown: growth only in
``.nv_fatbin`` spread over every SM architecture means more kernels were instantiated;
growth in architectures the old wheel did not have means the architecture list changed;
growth in ``.text`` means host C++ code; a new file under ``*.libs/`` means a grafted library.

A :class:`ContentReading` is data (bytes, names, architectures), as it is stored in the
investigation's JSON; the sentences are templates: ``content_reading.md.j2`` for the
issue and ``content_support.txt.j2`` for a candidate's status.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field

from wheel_size.diff.model import FileDiff, GpuDelta, WheelDiff
from wheel_size.evidence.document import Pattern, ReadingDocument
from wheel_size.native.standalone import STANDALONE_SECTION
from wheel_size.render import render

__all__ = ["DEVICE_SECTIONS", "ContentReading", "read_growth", "reading_markdown", "support_text"]

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


#: Reading -> the candidate categories (regressions.ranking.classify) it supports.
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
    """One reading: its pattern and the numbers and names the sentence about it uses.

    ``amount`` is the bytes the pattern is about (the new architectures' device code, the
    device, debug or host sections' growth, or the top file's); ``sections`` the device
    sections that grew; ``files`` the files it names (new files, largest first, or the
    bundled runtime libraries among them).
    """

    pattern: Pattern
    installed_delta: int = 0
    device_delta: int = 0
    top_file: str | None = None
    archs_grown: list[str] = field(default_factory=list)
    archs_added: list[str] = field(default_factory=list)
    amount: int = 0
    sections: list[str] = field(default_factory=list)
    files: list[str] = field(default_factory=list)

    def to_json(self) -> ReadingDocument:
        return {
            "pattern": self.pattern,
            "installed_delta": self.installed_delta,
            "device_delta": self.device_delta,
            "amount": self.amount,
            "top_file": self.top_file,
            "sections": self.sections,
            "files": self.files,
            "archs_grown": self.archs_grown,
            "archs_added": self.archs_added,
        }


def reading_markdown(reading: ContentReading) -> str:
    """The reading as one Markdown sentence for the issue (names made safe by the template)."""
    return render("content_reading.md.j2", r=reading).strip()


def support_text(reading: ContentReading, categories: list[str]) -> str:
    """Plain text for a candidate whose ``categories`` the reading supports (its status)."""
    return render("content_support.txt.j2", r=reading, categories=categories).strip()


def _standalone(item: FileDiff) -> bool:
    """A standalone cubin / code object file: every byte of it is device code."""
    return any(g.section == STANDALONE_SECTION for g in item.gpu)


def _section_delta(files: list[FileDiff], predicate: Callable[[str], bool]) -> int:
    total = 0
    for item in files:
        if not _standalone(item):
            total += sum(s.delta for s in item.sections if predicate(s.name))
    return total


def _device_delta(files: list[FileDiff]) -> int:
    """Device sections' growth, plus the whole growth of standalone code object files."""
    whole = sum(f.installed_delta for f in files if _standalone(f))
    return whole + _section_delta(files, lambda n: n in DEVICE_SECTIONS)


def _arch_name(row: GpuDelta) -> str:
    if row.kind == "cuda" and row.image == "ptx":
        return row.arch.replace("sm_", "compute_")
    return row.arch


def read_growth(diffs: list[WheelDiff]) -> ContentReading:
    """One reading for the comparisons of one event (usually a single wheel pair)."""
    files = [f for d in diffs for f in d.files]
    delta = sum(d.total.new_installed - d.total.old_installed for d in diffs)
    if not files:
        return ContentReading("none", delta)
    if delta <= 0:
        return ContentReading("shrink", delta, amount=delta)
    top = max(files, key=lambda f: f.installed_delta)
    device = _device_delta(files)
    debug = _section_delta(files, lambda n: n.startswith((".debug", ".zdebug")))
    host = _section_delta(
        files, lambda n: n not in DEVICE_SECTIONS and not n.startswith((".debug", ".zdebug"))
    )
    added = [f for f in files if f.status == "added"]
    added_delta = sum(f.new_installed for f in added)
    reading = ContentReading("mixed", delta, device, top.path, amount=top.installed_delta)

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

    if device >= 0.6 * delta:
        reading.sections = sorted(
            {s.name for f in files for s in f.sections if s.name in DEVICE_SECTIONS and s.delta > 0}
            | {STANDALONE_SECTION for f in files if _standalone(f) and f.installed_delta > 0}
        )
        reading.amount = device
        if reading.archs_added and added_arch_delta >= 0.5 * device:
            reading.pattern = "new-architectures"
            reading.amount = added_arch_delta
        elif codecs_changed:
            reading.pattern = "compression-change"
        elif len(both) >= 2 and len(reading.archs_grown) >= 0.75 * len(both):
            reading.pattern = "kernel-instantiations"
        else:
            reading.pattern = "device-code"
    elif added and added_delta >= 0.6 * delta:
        grafted = [
            f.path
            for f in added
            if f.path.rsplit("/", 1)[-1].startswith(_RUNTIMES) or ".libs/" in f.path
        ]
        reading.amount = added_delta
        if grafted:
            reading.pattern = "grafted-library"
            reading.files = grafted[:3]
        else:
            reading.pattern = "new-files"
            reading.files = [f.path for f in sorted(added, key=lambda f: -f.new_installed)[:3]]
    elif debug >= 0.5 * delta:
        reading.pattern, reading.amount = "debug-info", debug
    elif host >= 0.6 * delta:
        reading.pattern, reading.amount = "host-code", host
    return reading
