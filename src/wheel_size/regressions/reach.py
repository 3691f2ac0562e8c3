"""Which variants a commit can move, from the paths it changed and the lines it changed.

Tests, docs, benchmarks and CI configuration that builds no wheel ship nothing; ROCm/HIP,
CUDA-only, XPU, Windows, macOS and aarch64 paths cannot move other variants; a build script
whose changed lines sit under a ``12.8|12.9)`` case label only moves those two CUDA builds.
GPU sources under ``cuda/`` are hipified for ROCm too, so they reach ROCm weakly.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import PurePosixPath

from wheel_size.regressions.commits import ChangedFile
from wheel_size.regressions.fingerprint import VariantKey

__all__ = ["Part", "Reach", "file_parts", "reach_of"]

#: How strongly hipified CUDA sources reach the ROCm builds (often guarded out).
HIPIFIED = 0.5


@dataclass(frozen=True)
class Part:
    """One thing a commit can move: a platform kind, maybe only some versions or one OS."""

    kind: str  # all, cuda, rocm, xpu, cpu (the CPU build only), python, none
    strength: float = 1.0
    versions: frozenset[str] | None = None  # "cuda:12.8", "cuda:12.*", "rocm:7.0", "python:3.14"
    os: str | None = None  # windows, macos, aarch64; None: every OS
    why: str = ""

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


_NO_SHIP = re.compile(
    r"^(test|tests|testing|docs?|benchmarks?|examples?|scripts|android|ios|\.circleci|\.devcontainer"
    r"|\.vscode|\.ci/pytorch/(?!windows/)|\.ci/docker/(ci_commit_pins|requirements|ubuntu|centos"
    r"|linter|triton|almalinux/Dockerfile$|build\.sh$)|tools/(linter|testing|stats|test"
    r"|code_coverage|flight_recorder|nightly)|third_party/[^/]+/(test|tests|docs?|examples?)/)"
    r"|(^|/)(test|tests|testing)/"
    r"|(^|/)(README|CHANGELOG|CONTRIBUTING|LICENSE|NOTICE|CODEOWNERS|SECURITY)[^/]*$"
    r"|\.(md|rst|ipynb)$|(^|/)\.(lintrunner\.toml|flake8|clang-format|clang-tidy|gitignore"
    r"|editorconfig|pre-commit-config\.yaml|bazelrc|bazelversion|git-blame-ignore-revs)$"
    r"|(^|/)(mypy[^/]*\.ini|pytest\.ini|BUILD|BUILD\.bazel|BUCK|WORKSPACE|MODULE\.bazel)$"
    r"|(?<!build_variables)\.bzl$|(^|/)requirements[^/]*\.txt$",
    re.I,
)
_BINARY_CI = re.compile(
    r"^\.github/(workflows/generated-[^/]*binary|workflows/_binary|scripts/generate_binary"
    r"|templates/[^/]*binary|scripts/[^/]*(manywheel|binary_build|build_triton))",
    re.I,
)
_WINDOWS = re.compile(r"(^|/)win(dows)?([/_-]|$)|windows|\.(bat|ps1)$|_win\.|/win32|msvc", re.I)
_MACOS = re.compile(r"(^|/)mps/|\.mm$|\.metal$|(^|/)metal/|macos|darwin|^\.ci/wheel/|apple", re.I)
_AARCH64 = re.compile(r"aarch64|(^|/)sve\d*/|kleidi|(^|/)neon/|arm64|_sve\.|sbsa", re.I)
_XPU = re.compile(r"(^|/)xpu/|xpu|sycl|level_zero", re.I)
_ROCM = re.compile(
    r"(^|/)(hip|rocm|miopen)/|\.hip$|rocm|hipblaslt|hipsparselt|aotriton|composable_kernel"
    r"|(^|/)ck/|/ck_|loadhip|amd_build|rccl|/hip_|hipify_|_hip\.",
    re.I,
)
_CUDA_ONLY = re.compile(
    r"cutlass|cudnn|cusparselt|nvshmem|flash_attn|flash-attention|mem_eff_attention|cufile"
    r"|cuda\.cmake|build_cuda|install_cuda|cuda_fix|_cuda\.sh|Dockerfile_cuda|nvtx|cudss"
    r"|fbgemm_genai|(^|/)cuda\d|nvfuser",
    re.I,
)
_GPU = re.compile(r"(^|/)cuda/|\.cuh?$|nccl|/cuda_|cuda[A-Z_]|CUDA|(^|/)cuda[^/]*\.(cpp|h)$", re.I)
_CPU_BUILD = re.compile(r"^\.ci/manywheel/build_cpu|Dockerfile_cpu|_cpu\.sh$", re.I)
_BUILD = re.compile(
    r"^\.ci/(manywheel|docker/(manywheel|common)|pytorch/windows)/|CMakeLists\.txt$|\.cmake$"
    r"|(^|/)cmake/|^setup\.py$|^tools/setup_helpers/|build_variables\.bzl$|^\.gitmodules$"
    r"|^third_party/[^/]+$|^third_party/[^/]+\.txt$|^pyproject\.toml$",
    re.I,
)
_NATIVE = re.compile(
    r"\.(c|cc|cpp|cxx|cu|cuh|hip|h|hh|hpp|hxx|inl|tcc|mm|m|metal|S|asm|yaml|ya?ml\.in)$",
    re.I,
)
_PIN = re.compile(r"^third_party/[^/]+(\.txt)?$|ci_commit_pins/|^\.gitmodules$|/External/", re.I)
_HEADER = re.compile(r"\.(h|hh|hpp|hxx|cuh|inl|tcc)$", re.I)
_CODEGEN = re.compile(r"^(torchgen|tools/autograd|tools/codegen)/", re.I)
_PY = re.compile(r"\.(py|pyi|json|txt|cfg|ini|toml|in)$", re.I)


def _path_versions(path: str) -> set[str]:
    found = set()
    for m in re.finditer(r"cuda[_-]?(1[1-3])[._]?(\d)", path, re.I):
        found.add(f"cuda:{m[1]}.{m[2]}")
    for m in re.finditer(r"rocm[_-]?(\d)[._](\d)", path, re.I):
        found.add(f"rocm:{m[1]}.{m[2]}")
    return found


def file_parts(changed: ChangedFile) -> list[Part]:
    """What one changed file can move (an empty list: nothing)."""
    path = changed.filename
    binary_ci = bool(_BINARY_CI.search(path))
    if not binary_ci and (_NO_SHIP.search(path) or path.startswith(".github/")):
        return [Part("none", 0.0, why="ships in no wheel")]
    if path.startswith("torch/testing/"):
        return [Part("python", why="Python")]
    build = binary_ci or bool(_BUILD.search(path)) or changed.submodule
    native = build or bool(_NATIVE.search(path))
    scope = set(changed.terms.scope) | _path_versions(path)
    os_name = None
    if _WINDOWS.search(path):
        os_name = "windows"
    elif _MACOS.search(path):
        os_name = "macos"
    elif _AARCH64.search(path):
        os_name = "aarch64"
    if not native:
        if _CODEGEN.search(path):
            return [Part("all", 0.5, os=os_name, why="code generator")]
        return [Part("python", os=os_name, why="Python")]
    kind, strength, why = "all", 1.0, "shared native code" if not build else "build configuration"
    extra: list[Part] = []
    where = "build configuration" if build else "path"
    if _XPU.search(path):
        kind, why = "xpu", f"XPU-only {where}"
    elif _ROCM.search(path):
        kind, why = "rocm", f"ROCm-only {where}"
    elif _CUDA_ONLY.search(path):
        kind, why = "cuda", f"CUDA-only {where}"
    elif _GPU.search(path) and not build:
        kind, why = "cuda", "GPU code (hipified for ROCm too)"
        extra.append(Part("rocm", HIPIFIED, os=os_name, why=why))
    elif _CPU_BUILD.search(path):
        kind, why = "cpu", "CPU build only"
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
        return max((p.reaches(key) for p in self.bulk or self.parts), default=0.0)

    def strength(self, key: VariantKey) -> float:
        return max((p.reaches(key) for p in self.parts), default=0.0)

    @property
    def specific(self) -> bool:
        """Cannot move every variant (platform-, version- or OS-specific)."""
        return self.native and not any(
            p.kind == "all" and p.os is None and p.versions is None and p.strength >= 1
            for p in self.parts
        )


def reach_of(files: Iterable[ChangedFile]) -> Reach:
    """Combine the parts of every changed file of a commit."""
    parts: list[Part] = []
    added = deleted = 0
    files_seen = list(files)
    weighted: list[tuple[int, list[Part]]] = []
    pins = False
    for changed in files_seen:
        found = file_parts(changed)
        parts.extend(found)
        if any(p.kind not in ("none", "python") for p in found):
            added += changed.additions
            deleted += changed.deletions
            weighted.append((max(1, changed.additions + changed.deletions), found))
        if changed.submodule or _PIN.search(changed.filename):
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
        f for f in files_seen if any(p.kind not in ("none", "python") for p in file_parts(f))
    ]
    dead = bool(native_files) and all(
        f.status == "removed" and _HEADER.search(f.filename) for f in native_files
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
    """Narrow generic parts (shared code, hipified GPU code) to the platforms a title tags.

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
    return bool(_NATIVE.search(PurePosixPath(path).name))
