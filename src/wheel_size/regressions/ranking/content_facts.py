"""What the two nightlies' wheels say changed, in the terms candidates are matched on.

Read from the wheel diff (``wheel-size diff --format json``, stored in an investigation's
evidence): libraries that appeared or disappeared, GPU architectures whose device code
appeared, vanished or changed, and whether the change sits in device code, host code or
debug sections. "libcusparseLt.so.0 left the wheel" matches "Stop bundling cuSPARSELt";
"the sm_50 cubins vanished" matches "Drop sm_50".
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from wheel_size.cuda.library import FATBIN_SECTIONS
from wheel_size.native.debuginfo import DWARF_PREFIXES
from wheel_size.regressions.ranking.reach_table import ReachTable, default_table
from wheel_size.regressions.window.text_signals import library_of
from wheel_size.rocm.fatbin_library import FATBIN_SECTION

__all__ = ["ContentFacts", "FamilyFact", "facts_from_diff_json", "families_from_json"]

_DEVICE = frozenset((*FATBIN_SECTIONS, FATBIN_SECTION))
#: A change this small (bytes) is noise for matching purposes.
_MIN_BYTES = 64 * 1024
_MIN_RESIZE = 1024 * 1024


@dataclass(frozen=True)
class FamilyFact:
    """A kernel template family that moved (``at::native::reduce_kernel<…>``), summed
    across architectures: bytes and the number of architectures it moved in."""

    name: str
    delta: int
    archs: int


@dataclass
class ContentFacts:
    """Direction-aware facts of one wheel diff; ``delta`` is the installed size change."""

    delta: int = 0
    libraries_added: dict[str, str] = field(default_factory=dict)  # library -> file
    libraries_removed: dict[str, str] = field(default_factory=dict)
    libraries_changed: dict[str, int] = field(default_factory=dict)  # library -> bytes
    archs_added: set[str] = field(default_factory=set)
    archs_removed: set[str] = field(default_factory=set)
    archs_grown: set[str] = field(default_factory=set)
    archs_shrunk: set[str] = field(default_factory=set)
    archs_both: set[str] = field(default_factory=set)  # present on both sides
    device_delta: int = 0
    debug_delta: int = 0
    host_delta: int = 0
    # torch's own libraries (``torch_cuda`` for libtorch_cuda.so / torch_cuda.dll) -> bytes
    # changed: matched against the libraries each commit's sources build into.
    torch_libraries: dict[str, int] = field(default_factory=dict)
    # The kernel families that moved most (the evidence worker's top ones per direction).
    families: list[FamilyFact] = field(default_factory=list)
    families_rest: dict[int, int] = field(default_factory=dict)  # direction -> bytes

    def families_moved(self, direction: int) -> list[FamilyFact]:
        """Families that moved with the night and carry a real share (≥ 10 %) of what the
        families moved in that direction."""
        moved = [f for f in self.families if f.delta * direction > 0]
        total = sum(abs(f.delta) for f in moved) + abs(self.families_rest.get(direction, 0))
        return [f for f in moved if total and abs(f.delta) * 10 >= total]

    def torch_moved(self, direction: int) -> dict[str, int]:
        """torch libraries that moved with the night: a real share of it (≥ 20 %, ≥ 64 KiB)."""
        bar = max(_MIN_BYTES, abs(self.delta) // 5)
        return {lib: d for lib, d in self.torch_libraries.items() if d * direction >= bar}

    def torch_still(self) -> set[str]:
        """torch libraries in the diff that did not change (less than 64 KiB)."""
        return {lib for lib, d in self.torch_libraries.items() if abs(d) < _MIN_BYTES}

    def appeared(self, direction: int) -> dict[str, str]:
        """Libraries that explain a change in ``direction`` (added for growth)."""
        return self.libraries_added if direction > 0 else self.libraries_removed

    def resized(self, direction: int) -> dict[str, int]:
        """Bundled libraries (not torch's own) that grew (or shrank) by at least 1 MB."""
        return {lib: d for lib, d in self.libraries_changed.items() if d * direction >= _MIN_RESIZE}

    def archs_gone_or_new(self, direction: int) -> set[str]:
        return self.archs_added if direction > 0 else self.archs_removed

    def archs_moved(self, direction: int) -> set[str]:
        return self.archs_grown if direction > 0 else self.archs_shrunk

    def share(self, part: int) -> float:
        return part / self.delta if self.delta else 0.0


def _comparisons(diff: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    if "comparisons" in diff:
        return [c for c in diff.get("comparisons") or [] if isinstance(c, Mapping)]
    return [diff] if "files" in diff else []


def _arch(row: Mapping[str, Any]) -> str:
    arch = str(row.get("arch") or "")
    if row.get("kind") == "cuda" and row.get("image") == "ptx":
        return arch.replace("sm_", "compute_")
    return arch


def _library(path: str) -> str | None:
    name = path.rsplit("/", 1)[-1]
    found = library_of(name) or library_of(path)
    if found:
        return found
    stem = re.sub(r"^lib", "", name.split(".", 1)[0])
    return re.sub(r"[-_][0-9a-f]{8}$", "", stem).lower() or None


def facts_from_diff_json(
    diff: Mapping[str, Any] | None, table: ReachTable | None = None
) -> ContentFacts | None:
    """Facts from a diff's JSON (one comparison or several); None when there is none.
    Which members are libraries, and which are the project's own: the reach table's
    ``library_file``, ``own_library`` and ``own_library_prefix``."""
    t = table or default_table()
    if not diff:
        return None
    comparisons = _comparisons(diff)
    if not comparisons:
        return None
    facts = ContentFacts()
    per_arch: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
    for comparison in comparisons:
        total = comparison.get("total") or {}
        files: Iterable[Mapping[str, Any]] = comparison.get("files") or []
        file_sum = 0
        for item in files:
            path = str(item.get("path") or "")
            old = int(item.get("old_installed") or 0)
            new = int(item.get("new_installed") or 0)
            file_sum += new - old
            status = item.get("status")
            own = t.own_library(path)
            if own:
                facts.torch_libraries[own] = facts.torch_libraries.get(own, 0) + new - old
            if status == "changed" and not t.match("own_library_prefix", path):
                changed_lib = library_of(path)
                if changed_lib:
                    facts.libraries_changed[changed_lib] = (
                        facts.libraries_changed.get(changed_lib, 0) + new - old
                    )
            if status in ("added", "removed") and max(old, new) >= _MIN_BYTES:
                library = _library(path) if t.match("library_file", path) else library_of(path)
                if library:
                    target = facts.libraries_added if status == "added" else facts.libraries_removed
                    target.setdefault(library, path)
            for section in item.get("sections") or []:
                name = str(section.get("name") or "")
                change = int(section.get("new_size") or 0) - int(section.get("old_size") or 0)
                if name in _DEVICE:
                    facts.device_delta += change
                elif name.startswith(DWARF_PREFIXES):
                    facts.debug_delta += change
                else:
                    facts.host_delta += change
            for row in item.get("gpu") or []:
                if row.get("image") not in ("sass", "code_object"):
                    continue
                slot = per_arch[_arch(row)]
                slot[0] += int(row.get("old_entries") or 0)
                slot[1] += int(row.get("new_entries") or 0)
                slot[2] += int(row.get("new_bytes") or 0) - int(row.get("old_bytes") or 0)
        if total:
            facts.delta += int(total.get("new_installed") or 0) - int(
                total.get("old_installed") or 0
            )
        else:
            facts.delta += file_sum
    for arch, (old, new, change) in per_arch.items():
        if old and not new:
            facts.archs_removed.add(arch)
        elif new and not old:
            facts.archs_added.add(arch)
        else:
            facts.archs_both.add(arch)
            if change >= _MIN_BYTES // 4:
                facts.archs_grown.add(arch)
            elif change <= -_MIN_BYTES // 4:
                facts.archs_shrunk.add(arch)
    return facts


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def families_from_json(data: Any) -> tuple[list[FamilyFact], dict[int, int]]:
    """The families of an investigation's stored evidence (``evidence.families``); rows
    that are not what the worker writes are skipped (stored JSON may be older)."""
    if not isinstance(data, Mapping):
        return [], {}
    out: list[FamilyFact] = []
    for key in ("grown", "shrunk"):
        rows = data.get(key)
        for row in rows if isinstance(rows, list) else []:
            if not isinstance(row, Mapping) or not isinstance(row.get("name"), str):
                continue
            archs = row.get("archs")
            delta = _int(row.get("new_bytes")) - _int(row.get("old_bytes"))
            if delta:
                out.append(
                    FamilyFact(row["name"], delta, len(archs) if isinstance(archs, list) else 0)
                )
    rest = {1: _int(data.get("more_grown_bytes")), -1: _int(data.get("more_shrunk_bytes"))}
    return out, rest
