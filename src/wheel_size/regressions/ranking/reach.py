"""Which variants a commit can move, from the paths it changed and the lines it changed.

The path rules are data (:mod:`wheel_size.regressions.ranking.reach_table`). Tests, docs,
benchmarks and CI configuration that builds no wheel ship nothing; ROCm/HIP, CUDA-only, XPU,
Windows, macOS and aarch64 paths cannot move other variants; a build script whose changed
lines sit under a ``12.8|12.9)`` case label only moves those two CUDA builds; a build image
moves the toolkits the commit names; a submodule bump moves the variants of the libraries
that link it. GPU sources under ``cuda/`` are hipified, so they can move the CUDA and the
ROCm wheels; which one depends on guards we do not see, so they *may* move either
(``certain=False``): they match a night that moved either, and a flat one does not count
against them.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import PurePosixPath

from wheel_size.regressions.ranking.reach_table import ReachTable, default_table
from wheel_size.regressions.window.commits import ChangedFile
from wheel_size.variants import VariantKey

__all__ = ["Part", "Reach", "file_parts", "reach_of"]


@dataclass(frozen=True)
class Part:
    """One thing a commit can move: a platform kind, maybe only some versions or one OS."""

    kind: str  # all, cuda, rocm, xpu, cpu (the CPU build only), python, none
    strength: float = 1.0
    versions: frozenset[str] | None = None  # "cuda:12.8", "cuda:12.*", "rocm:7.0", "python:3.14"
    os: str | None = None  # windows, macos, aarch64; None: every OS
    why: str = ""
    # False: it can move these variants, or not (hipified code behind guards): it matches a
    # night that moved them, but a night that left them flat is no evidence against it.
    certain: bool = True

    def reaches(self, key: VariantKey) -> float:
        if self.kind in ("none",):
            return 0.0
        if self.os is not None and self.os != key.os:
            return 0.0
        if self.kind == "cpu" and key.kind != "cpu":
            return 0.0
        if self.kind in ("cuda", "rocm", "xpu") and key.kind != self.kind:
            return 0.0
        if self.versions is not None and not _version_match(self.versions, key):
            return 0.0
        return self.strength


def _version_match(versions: frozenset[str], key: VariantKey) -> bool:
    relevant = False
    for item in versions:
        space, _, version = item.partition(":")
        if space == "python":
            if key.python is None:
                continue
            relevant = True
            if key.python == version:
                return True
            continue
        if space != key.kind:
            continue
        relevant = True
        if key.version is None or version == "*":
            return True
        if (
            version == "*"
            or version == key.version
            or (version.endswith(".*") and key.version.split(".")[0] == version[:-2])
        ):
            return True
        if version.startswith(">=") and _ver(key.version) >= _ver(version[2:]):
            return True
    return not relevant


def _ver(text: str) -> tuple[int, int]:
    major, _, minor = text.partition(".")
    return (int(major) if major.isdigit() else 0, int(minor) if minor.isdigit() else 0)


def _hipified(scope: set[str], os_name: str | None, strength: float) -> list[Part]:
    """Hipified GPU code may move CUDA and ROCm; a platform condition in its changed lines
    (``#if defined(USE_ROCM)`` → ``rocm:*``) keeps it to that platform."""
    why = "GPU code (CUDA sources, also converted (hipified) for ROCm)"
    spaces = {s.split(":")[0] for s in scope if s.split(":")[0] in ("cuda", "rocm")}
    parts = []
    for space, power in (("cuda", 1.0), ("rocm", strength)):
        if spaces and space not in spaces:
            continue
        versions = {s for s in scope if s.startswith(space + ":") and not s.endswith(":*")}
        label = why if not spaces else f"GPU code guarded for {space.upper()}"
        parts.append(
            Part(space, power, frozenset(versions) or None, os_name, label, certain=bool(spaces))
        )
    return parts


def _path_versions(path: str) -> set[str]:
    found = set()
    for m in re.finditer(r"cuda[_-]?(1[1-3])[._]?(\d)", path, re.I):
        found.add(f"cuda:{m[1]}.{m[2]}")
    for m in re.finditer(r"rocm[_-]?(\d)[._](\d)", path, re.I):
        found.add(f"rocm:{m[1]}.{m[2]}")
    return found


def file_parts(
    changed: ChangedFile, table: ReachTable | None = None, named: frozenset[str] = frozenset()
) -> list[Part]:
    """What one changed file can move (an empty list: nothing). ``named``: the toolkit
    versions the commit's words name (``cuda:12.9``), which scope a build image."""
    t = table or default_table()
    path = changed.filename
    binary_ci = t.match("binary_ci", path)
    if not binary_ci and (t.match("no_ship", path) or t.match("ci_config", path)):
        return [Part("none", 0.0, why="ships in no wheel")]
    if t.match("python_shipped", path):
        return [Part("python", why="Python")]
    build = binary_ci or t.match("build", path) or changed.submodule
    if build and not changed.submodule and changed.terms.warnings_only:
        return [Part("none", 0.0, why="compiler warning options only: no code generated")]
    native = build or t.match("native", path)
    scope = set(changed.terms.scope) | _path_versions(path)
    os_name = None
    if t.match("windows", path):
        os_name = "windows"
    elif t.match("macos", path):
        os_name = "macos"
    elif t.match("aarch64", path):
        os_name = "aarch64"
    if not native:
        if t.match("codegen", path):
            return [Part("all", 0.5, os=os_name, why="code generator")]
        return [Part("python", os=os_name, why="Python")]
    kind, strength, why = "all", 1.0, "shared native code" if not build else "build configuration"
    extra: list[Part] = []
    where = "build configuration" if build else "path"
    sub = t.submodule(path) if (changed.submodule or t.match("pin", path)) else None
    if sub is not None:
        label = {"all": "every variant", "cpu": "the CPU build"}.get(sub.kind, sub.kind.upper())
        libs = ", ".join(f"lib{lib}" for lib in sub.libraries) or "its libraries"
        kind, why = sub.kind, f"submodule linked into {libs} ({label})"
    elif t.match("xpu", path):
        kind, why = "xpu", f"XPU-only {where}"
    elif t.match("rocm", path):
        kind, why = "rocm", f"ROCm-only {where}"
    elif t.match("cuda_only", path):
        kind, why = "cuda", f"CUDA-only {where}"
    elif t.match("hipified", path) and not build:
        return _hipified(scope, os_name, t.hipified_strength)
    elif t.match("cpu_build", path):
        kind, why = "cpu", "CPU build only"
    if (
        build
        and t.match("build_image", path)
        and named
        and not any(not s.startswith("python:") for s in scope)
    ):
        # A build image or toolkit installer moves exactly the toolkits the commit names.
        scope |= set(named)
        why = f"build image naming {', '.join(sorted(v.replace(':', ' ') for v in named))}"
    toolkit = {s for s in scope if not s.startswith("python:")}
    pythons = {s for s in scope if s.startswith("python:")}
    if toolkit and (build or kind != "all"):
        # The changed lines sit under specific toolkit versions: only those builds.
        parts = []
        for space in sorted({s.split(":")[0] for s in toolkit}):
            if kind not in ("all", space, "cpu"):
                continue
            versions = frozenset({s for s in toolkit if s.startswith(space + ":")} | pythons)
            label = ", ".join(sorted(v.split(":")[1] for v in versions if v.startswith(space)))
            label = "builds" if label == "*" else label
            parts.append(
                Part(space, 1.0, versions, os_name, f"{why} scoped to {space.upper()} {label}")
            )
        if parts:
            return parts
    only_pythons = frozenset(pythons) if pythons and build else None
    return [Part(kind, strength, only_pythons, os_name, why), *extra]


@dataclass(frozen=True)
class Reach:
    """Everything a commit's changed files can move."""

    parts: tuple[Part, ...]
    ships: bool  # some file ships in a wheel or builds one
    native: bool  # some file is native code or build configuration
    scoped: bool  # some part is limited to named toolkit versions
    summary: str
    native_added: int = 0
    native_deleted: int = 0
    # Only deletes headers and touches no source: nothing included them, no code came of them.
    dead_headers: bool = False
    # The parts of the files that hold most (80 %) of its changed native lines: where the
    # size goes. A helper touched on the side does not make a CUDA kernel commit "shared".
    bulk: tuple[Part, ...] = ()
    pins: bool = False  # changes a submodule or a pinned dependency version

    def bulk_strength(self, key: VariantKey) -> float:
        """How surely its bulk moves ``key`` (parts that only *may* move it count 0)."""
        return max((p.reaches(key) for p in self.bulk or self.parts if p.certain), default=0.0)

    def strength(self, key: VariantKey) -> float:
        return max((p.reaches(key) for p in self.parts), default=0.0)

    @property
    def specific(self) -> bool:
        """Cannot move every variant (platform-, version- or OS-specific)."""
        return self.native and not any(
            p.kind == "all" and p.os is None and p.versions is None and p.strength >= 1
            for p in self.parts
        )


def reach_of(
    files: Iterable[ChangedFile],
    table: ReachTable | None = None,
    named: frozenset[str] = frozenset(),
) -> Reach:
    """Combine the parts of every changed file of a commit (``named``: the toolkit
    versions its words name, for build images)."""
    t = table or default_table()
    parts: list[Part] = []
    added = deleted = 0
    files_seen = list(files)
    weighted: list[tuple[int, list[Part]]] = []
    pins = False
    for changed in files_seen:
        found = file_parts(changed, t, named)
        parts.extend(found)
        if any(p.kind not in ("none", "python") for p in found):
            added += changed.additions
            deleted += changed.deletions
            weighted.append((max(1, changed.additions + changed.deletions), found))
        if changed.submodule or t.match("pin", changed.filename):
            pins = True
    total = sum(w for w, _ in weighted)
    bulk: list[Part] = []
    covered = 0
    for lines, found in sorted(weighted, key=lambda item: -item[0]):
        if total and covered >= 0.8 * total:
            break
        bulk.extend(found)
        covered += lines
    shipped = [p for p in parts if p.kind != "none"]
    native = [p for p in shipped if p.kind != "python"]
    if not shipped:
        summary = "ships in no wheel (tests, docs, CI)"
    elif not native:
        summary = "Python only"
    else:
        whys = list(dict.fromkeys(p.why for p in native))
        summary = "; ".join(whys[:2])
    unique = tuple(dict.fromkeys(shipped))
    native_files = [
        f
        for f in files_seen
        if any(p.kind not in ("none", "python") for p in file_parts(f, t, named))
    ]
    dead = bool(native_files) and all(
        f.status == "removed" and t.match("header", f.filename) for f in native_files
    )
    return Reach(
        parts=unique,
        ships=bool(shipped),
        native=bool(native),
        scoped=any(p.versions is not None for p in native),
        summary=summary,
        native_added=added,
        native_deleted=deleted,
        dead_headers=dead,
        bulk=tuple(dict.fromkeys(bulk)),
        pins=pins,
    )


def narrow(reach: Reach, platforms: Iterable[str], *, shared_too: bool = True) -> Reach:
    """Narrow generic parts (shared code, hipified GPU code) to the platforms a title tags
    (hipified code keeps its other platform at half strength, uncertain: no guard says so).

    "[ROCm] Use hipBLASLt for addmm" in ``aten/src/ATen/cuda/CUDABlas.cpp`` is ROCm code
    behind ``#ifdef USE_ROCM``, whatever the path says. ``shared_too=False`` (a platform
    named in the title, not tagged) narrows only hipified GPU code.
    """
    tags = sorted(set(platforms) & {"cuda", "rocm", "xpu", "macos", "windows", "aarch64"})
    if not tags or not reach.native:
        return reach
    replacement = [
        Part(t, 1.0, why=f"{t}-tagged")
        if t in ("cuda", "rocm", "xpu")
        else Part("all", 1.0, None, t, f"{t}-tagged")
        for t in tags
    ]

    def swap(parts: tuple[Part, ...]) -> tuple[tuple[Part, ...], bool]:
        out: list[Part] = []
        changed = False
        for part in parts:
            shared = part.kind == "all" and part.os is None and part.versions is None
            if (shared and shared_too) or "hipified" in part.why:
                out.extend(replacement)
                changed = True
                if "hipified" in part.why and part.kind not in tags:
                    # The title's platform is a reading of intent; the file still compiles
                    # for the other one unless a guard says otherwise: kept, half as strong,
                    # uncertain (a night that left it flat is no evidence against it).
                    out.append(dataclasses.replace(part, strength=part.strength / 2, certain=False))
            else:
                out.append(part)
        return tuple(dict.fromkeys(out)), changed

    parts, changed = swap(reach.parts)
    if not changed:
        return reach
    label = "/".join(t.upper() if t in ("cuda", "rocm", "xpu") else t for t in tags)
    return dataclasses.replace(
        reach, parts=parts, bulk=swap(reach.bulk)[0], summary=f"{reach.summary}, tagged {label}"
    )


def is_native_path(path: str) -> bool:
    return default_table().match("native", PurePosixPath(path).name)
