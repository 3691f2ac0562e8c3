"""A wheel's platform tag against what its native files need, as auditwheel's policy
(glibc symbol versions) and delocate (macOS minimum, slice architectures) check it.

``manylinux_X_Y`` promises glibc X.Y (``manylinux1`` 2.5, ``manylinux2010`` 2.12,
``manylinux2014`` 2.17); the lowest promise among a wheel's tags is the one pip relies on.
``musllinux`` makes no glibc promise. ``linux_<arch>`` is refused by PyPI's upload.
``macosx_X_Y`` promises macOS X.Y (arm64 code cannot run before 11.0 whatever the tag
says). ``win32`` / ``win_amd64`` / ``win_arm64`` name only the CPU.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from wheel_size.audit.inspect import NativeFile, WheelInfo

__all__ = ["PlatformIssue", "platform_issues"]

Version = tuple[int, ...]

_LEGACY = {"manylinux1": (2, 5), "manylinux2010": (2, 12), "manylinux2014": (2, 17)}
_MACOS_ARCHS = {
    "universal2": {"x86_64", "arm64"},
    "intel": {"i386", "x86_64"},
    "fat": {"i386", "ppc"},
    "fat3": {"i386", "ppc", "x86_64"},
    "fat64": {"x86_64", "ppc64"},
    "universal": {"i386", "ppc", "ppc64", "x86_64"},
}
_WINDOWS = {"win32": "x86", "win_amd64": "amd64", "win_arm64": "arm64"}
_ARM64_MACOS = (11, 0)


@dataclass(frozen=True)
class PlatformIssue:
    kind: str  # glibc-too-new, macos-too-new, platform-mismatch, platform-tag-not-on-pypi
    detail: str


@dataclass(frozen=True)
class _Tag:
    text: str
    os: str  # linux, macos, windows
    archs: frozenset[str]
    glibc: Version | None = None
    macos: Version | None = None


def _show(version: Version) -> str:
    return ".".join(map(str, version))


def _parse(tag: str) -> _Tag | None:
    match = re.match(r"^(manylinux|musllinux)_(\d+)_(\d+)_(.+)$", tag)
    if match:
        glibc = (
            (int(match.group(2)), int(match.group(3))) if match.group(1) == "manylinux" else None
        )
        return _Tag(tag, "linux", frozenset({match.group(4)}), glibc=glibc)
    for alias, version in _LEGACY.items():
        if tag.startswith(alias + "_"):
            return _Tag(tag, "linux", frozenset({tag[len(alias) + 1 :]}), glibc=version)
    if tag.startswith("linux_"):
        return _Tag(tag, "linux", frozenset({tag[len("linux_") :]}))
    match = re.match(r"^macosx_(\d+)_(\d+)_(.+)$", tag)
    if match:
        arch = match.group(3)
        archs = _MACOS_ARCHS.get(arch, {arch})
        return _Tag(
            tag, "macos", frozenset(archs), macos=(int(match.group(1)), int(match.group(2)))
        )
    if tag in _WINDOWS:
        return _Tag(tag, "windows", frozenset({_WINDOWS[tag]}))
    return None


_FORMAT_OS = {"elf": "linux", "mach-o": "macos", "pe": "windows"}
_FORMAT_NAME = {
    "elf": "an ELF (Linux) file",
    "mach-o": "a Mach-O (macOS) file",
    "pe": "a PE (Windows) file",
}


def _glibc(native: NativeFile, tag: _Tag) -> PlatformIssue | None:
    if tag.glibc is None or not native.facts.glibc:
        return None
    newest = max(native.facts.glibc)
    if newest <= tag.glibc:
        return None
    symbols = native.facts.glibc[newest]
    via = f" ({', '.join(f'{s}@GLIBC_{_show(newest)}' for s in symbols)})" if symbols else ""
    return PlatformIssue(
        "glibc-too-new",
        f"{native.path} requires GLIBC_{_show(newest)}{via} but the tag {tag.text} promises "
        f"glibc {_show(tag.glibc)}; raise the tag to manylinux_{newest[0]}_{newest[1]} or "
        "build on an older glibc",
    )


def _macos(native: NativeFile, tag: _Tag) -> list[PlatformIssue]:
    found: list[PlatformIssue] = []
    if tag.macos is None:
        return found
    # every slice of a universal2 file that needs more: one issue naming them all
    slices = []
    for cpu, minimum in sorted(native.facts.macos_minimum.items()):
        floor = max(tag.macos, _ARM64_MACOS) if cpu == "arm64" else tag.macos
        if minimum > floor:
            slices.append(f"({cpu}) needs macOS {_show(minimum)}")
    if slices:
        found.append(
            PlatformIssue(
                "macos-too-new",
                f"{native.path} {' and '.join(slices)} but the tag {tag.text} promises macOS "
                f"{_show(tag.macos)}",
            )
        )
    return found


def _cpu(native: NativeFile, tag: _Tag) -> PlatformIssue | None:
    machines = set(native.facts.machines)
    if not machines:
        return None
    if tag.os == "macos":
        missing = sorted(tag.archs - machines)
        if missing and not (machines - tag.archs):
            return PlatformIssue(
                "platform-mismatch",
                f"{native.path} has no {', '.join(missing)} slice, which the tag {tag.text} "
                "promises",
            )
    stray = sorted(machines - tag.archs)
    if stray:
        return PlatformIssue(
            "platform-mismatch",
            f"{native.path} is built for {', '.join(stray)}, not for the tag {tag.text}",
        )
    return None


def _check(native: NativeFile, tag: _Tag) -> list[PlatformIssue]:
    if _FORMAT_OS.get(native.format) != tag.os:
        return [
            PlatformIssue(
                "platform-mismatch",
                f"{native.path} is {_FORMAT_NAME.get(native.format, native.format)} in a wheel "
                f"tagged {tag.text}",
            )
        ]
    found = [*_macos(native, tag)]
    for issue in (_glibc(native, tag), _cpu(native, tag)):
        if issue is not None:
            found.append(issue)
    return found


def platform_issues(wheel: WheelInfo) -> list[PlatformIssue]:
    """Native files that need more than the wheel's platform tags promise (one issue per
    file and kind), and a note for tags PyPI refuses."""
    if wheel.name is None or wheel.pure:
        return []
    tags = [t for t in (_parse(p) for p in wheel.name.platform_tags) if t is not None]
    found: list[PlatformIssue] = []
    for text in wheel.name.platform_tags:
        if text.startswith("linux_"):
            found.append(
                PlatformIssue(
                    "platform-tag-not-on-pypi",
                    f"tagged {text}: PyPI refuses this platform tag (publish it on your own "
                    "index, or repair it to a manylinux tag with auditwheel)",
                )
            )
    if not tags:
        return found
    # the promise pip relies on is the weakest one: the lowest glibc / macOS of the tags
    # (on a tie the PEP 600 spelling, manylinux_2_17 rather than manylinux2014, is named)
    weakest = min(tags, key=lambda t: (t.glibc or (99,), t.macos or (99,), t.text[9:10] != "_"))
    for native in wheel.native:
        issues = _check(native, weakest)
        # a wheel may name several CPUs (one tag each): its file fits when any tag fits
        if any(not _mismatch(_check(native, t)) for t in tags):
            issues = [i for i in issues if i.kind != "platform-mismatch"]
        seen: set[str] = set()
        for issue in issues:
            if issue.kind not in seen:
                seen.add(issue.kind)
                found.append(issue)
    return found


def _mismatch(issues: list[PlatformIssue]) -> bool:
    return any(i.kind == "platform-mismatch" for i in issues)
