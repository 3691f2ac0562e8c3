"""Rules across the wheels of one build matrix, and a keep / drop / fix verdict for each.

The rules follow the audit design in the wheel-audit spec (A5): identical payloads once the
local version label is dropped (redundant builds, pytorch/ao#1741), accelerator-labelled
wheels without native code (pytorch/ao#1747), one file name with different bytes from two
jobs, abi3 extensions importing outside the stable ABI, RECORD not matching the contents.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from wheel_size.audit.arch_coverage import arch_order, arch_platform, missing_archs
from wheel_size.audit.document import (
    AuditDocument,
    AuditSummary,
    FindingRow,
    NameCollisionRow,
    RedundantGroupRow,
    VerdictRow,
)
from wheel_size.audit.inspect import WheelInfo
from wheel_size.audit.jobs import JobVerdict, job_verdicts, keep_order
from wheel_size.audit.platform_check import platform_issues
from wheel_size.variants import variant_key

__all__ = [
    "AuditReport",
    "Finding",
    "NameCollision",
    "RedundantGroup",
    "Verdict",
    "audit_matrix",
]

# Runtimes whose presence in DT_NEEDED shows which accelerator a library really targets.
_ACCELERATOR_RUNTIMES = (
    "libcudart", "libcuda.", "libcublas", "libcudnn", "libnvrtc", "libc10_cuda", "libtorch_cuda",
    "libamdhip64", "libhiprtc", "librocblas", "libMIOpen", "libc10_hip", "libtorch_hip",
    "libsycl", "libze_loader", "libc10_xpu", "libtorch_xpu",
)  # fmt: skip


@dataclass
class Finding:
    kind: str
    wheels: list[str]
    detail: str

    def to_json(self) -> FindingRow:
        return {"kind": self.kind, "wheels": self.wheels, "detail": self.detail}


@dataclass
class RedundantGroup:
    members: list[str]
    keep: str
    reason: str

    def to_json(self) -> RedundantGroupRow:
        return {"members": self.members, "keep": self.keep, "reason": self.reason}


@dataclass
class NameCollision:
    """Several jobs write ``filename`` with different bytes; ``keep`` is the one to upload."""

    filename: str
    members: list[str]
    keep: str
    reason: str

    def to_json(self) -> NameCollisionRow:
        return {
            "filename": self.filename,
            "members": self.members,
            "keep": self.keep,
            "reason": self.reason,
        }


@dataclass
class Verdict:
    wheel: str
    verdict: str  # keep, drop, fix
    reason: str

    def to_json(self) -> VerdictRow:
        return {"wheel": self.wheel, "verdict": self.verdict, "reason": self.reason}


@dataclass
class AuditReport:
    wheels: list[WheelInfo]
    redundant_groups: list[RedundantGroup] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    verdicts: list[Verdict] = field(default_factory=list)
    unreadable: list[Finding] = field(default_factory=list)
    name_collisions: list[NameCollision] = field(default_factory=list)
    jobs: list[JobVerdict] = field(default_factory=list)

    @property
    def jobs_to_disable(self) -> list[JobVerdict]:
        return [j for j in self.jobs if j.action == "disable"]

    def to_json(self) -> AuditDocument:
        def count(verdict: str) -> int:
            return sum(v.verdict == verdict for v in self.verdicts)

        summary: AuditSummary = {
            "keep": count("keep"),
            "drop": count("drop"),
            "fix": count("fix"),
            "jobs_to_disable": len(self.jobs_to_disable),
        }
        return {
            "wheels": [w.to_json() for w in self.wheels],
            "redundant_groups": [g.to_json() for g in self.redundant_groups],
            "name_collisions": [c.to_json() for c in self.name_collisions],
            "findings": [f.to_json() for f in [*self.unreadable, *self.findings]],
            "verdicts": [v.to_json() for v in self.verdicts],
            "jobs": [j.to_json() for j in self.jobs],
            "jobs_to_disable": [j.job for j in self.jobs_to_disable],
            "summary": summary,
        }


def _has_accelerator_code(wheel: WheelInfo) -> bool:
    if any(g.archs for g in wheel.gpu_files):
        return True
    for native in wheel.native:
        if native.gpu_archs or native.kpack_kernel:
            return True
        if any(needed.startswith(_ACCELERATOR_RUNTIMES) for needed in native.needed):
            return True
    return False


_GRAFT_DIR = re.compile(r"(^|/)[^/]+\.libs/|(^|/)\.dylibs/")
# Driver and runtime libraries that must come from the system or from nvidia-*/rocm wheels.
_NOT_TO_GRAFT = ("libcuda.so", "libcuda-", "libcudart", "libnvrtc", "libamdhip64", "libhsa-runtime")


def _cuda_major(label: str) -> int | None:
    """The CUDA major version an accelerator label names (``cu128`` → 12), read through the
    variant vocabulary."""
    key = variant_key(label)
    return int(key.version.split(".")[0]) if key.kind == "cuda" and key.version else None


def _runtime_findings(wheel: WheelInfo) -> list[Finding]:
    found: list[Finding] = []
    for native in wheel.native:
        base = native.path.rsplit("/", 1)[-1]
        if _GRAFT_DIR.search(native.path) and base.startswith(_NOT_TO_GRAFT):
            found.append(
                Finding(
                    "grafted-runtime",
                    [wheel.path],
                    f"{native.path} is a GPU driver/runtime library copied into the wheel "
                    "(auditwheel repair without --exclude?)",
                )
            )
    label = wheel.accelerator or ""
    needed = sorted({n for native in wheel.native for n in native.needed})
    cudart = [n for n in needed if n.startswith("libcudart.so.")]
    if variant_key(label).kind == "rocm" and any(
        n.startswith(("libcudart", "libcuda.")) for n in needed
    ):
        found.append(
            Finding(
                "accelerator-mismatch",
                [wheel.path],
                f"labelled {label!r} but links {', '.join(cudart or needed)}",
            )
        )
    major = _cuda_major(label)
    if major is not None:
        other = [n for n in cudart if n.split(".so.", 1)[1].split(".")[0] != str(major)]
        if other:
            found.append(
                Finding(
                    "accelerator-mismatch",
                    [wheel.path],
                    f"labelled {label!r} (CUDA {major}) but links {', '.join(other)}",
                )
            )
    return found


# Findings that inform but do not change a verdict (a narrower library can be deliberate).
INFORMATIONAL = frozenset(
    {"arch-coverage", "platform-tag-not-on-pypi", "abi3-file-name", "native-code-in-purelib"}
)


def _coverage_findings(wheel: WheelInfo) -> list[Finding]:
    """Native files of one wheel that lack GPU architectures its other files carry: on such
    a GPU those kernels fall back to PTX JIT or fail to launch. Architectures are compared
    by what they serve (:mod:`wheel_size.audit.arch_coverage`), and a single-architecture
    library is not a gap."""
    found: list[Finding] = []
    for kind in ("cuda", "hip"):
        files = {
            n.path: [a for a in n.gpu_archs if arch_platform(a) == kind]
            for n in sorted(wheel.native, key=lambda n: n.path)
        }
        gaps = missing_archs({path: archs for path, archs in files.items() if archs})
        for path, missing in sorted(gaps.items()):
            found.append(
                Finding(
                    "arch-coverage",
                    [wheel.path],
                    f"{path} has no code for {', '.join(sorted(missing, key=_arch_sort))}, "
                    "which other native files of this wheel carry",
                )
            )
    return found


def _arch_sort(arch: str) -> tuple[str, int, str]:
    digits = re.sub(r"\D", "", arch.split(":", 1)[0].split("_", 1)[-1])
    return (arch[:3], int(digits) if digits else 0, arch)


def _abi3_findings(wheel: WheelInfo) -> list[Finding]:
    """abi3audit's two checks (symbols outside the stable ABI; stable ones newer than the
    tag's Python) on every file that imports the C-API, and the file-name rule: a name
    for one CPython version is a fix only for a file that imports the C-API (Python imports
    it as a module); a library that imports none is loaded by path, and its name is a note."""
    baseline = wheel.abi3_baseline
    if baseline is None:
        return []
    tagged = f"cp{baseline[0]}{baseline[1]}-abi3"
    found: list[Finding] = []
    for native in wheel.native:
        if native.non_stable_symbols:
            symbols = ", ".join(native.non_stable_symbols[:8])
            more = len(native.non_stable_symbols) - 8
            found.append(
                Finding(
                    "abi3-violation",
                    [wheel.path],
                    f"{native.path} imports symbols outside the stable ABI: {symbols}"
                    + (f" and {more} more" if more > 0 else ""),
                )
            )
        if native.newer_symbols:
            minimum = native.stable_abi_minimum or ""
            newer = ", ".join(f"{k} ({v})" for k, v in list(native.newer_symbols.items())[:8])
            found.append(
                Finding(
                    "abi3-version",
                    [wheel.path],
                    f"{native.path} uses the Python {minimum} stable ABI ({newer}) but the "
                    f"wheel is tagged {tagged}: tag it cp{minimum.replace('.', '')}-abi3 "
                    "or stop using them",
                )
            )
        if ".cpython-" in native.path.rsplit("/", 1)[-1] and native.format == "elf":
            if native.python_api_imports:
                found.append(
                    Finding(
                        "abi3-violation",
                        [wheel.path],
                        f"{native.path} is a Python extension named for one CPython version "
                        "in an abi3 wheel: other Pythons will not import it",
                    )
                )
            else:
                found.append(
                    Finding(
                        "abi3-file-name",
                        [wheel.path],
                        f"{native.path} is named for one CPython version but imports no "
                        "Python C-API symbol (a library loaded by path): the name is cosmetic",
                    )
                )
    return found


def _per_wheel(wheel: WheelInfo) -> list[Finding]:
    found: list[Finding] = [*_runtime_findings(wheel), *_coverage_findings(wheel)]
    found += [Finding(i.kind, [wheel.path], i.detail) for i in platform_issues(wheel)]
    if wheel.problems:
        more = len(wheel.problems) - 1
        detail = wheel.problems[0] + (f" (and {more} more)" if more else "")
        found.append(Finding("wheel-problem", [wheel.path], detail))
    if wheel.record_problems:
        more = len(wheel.record_problems) - 1
        detail = wheel.record_problems[0] + (f" (and {more} more)" if more else "")
        found.append(Finding("record-mismatch", [wheel.path], detail))
    found += _abi3_findings(wheel)
    label = wheel.accelerator
    if label and not wheel.native and not wheel.gpu_files:
        found.append(
            Finding(
                "label-without-native-code",
                [wheel.path],
                f"labelled {label!r} but holds no native code: the label adds nothing",
            )
        )
    elif label and not wheel.problems and not _has_accelerator_code(wheel):
        # (with an unreadable member we cannot tell, and the wheel is to fix anyway)
        found.append(
            Finding(
                "label-without-native-code",
                [wheel.path],
                f"labelled {label!r} but none of its {len(wheel.native)} native files carries GPU "
                "code or links an accelerator runtime",
            )
        )
    if wheel.name and not wheel.pure and not wheel.native and not wheel.gpu_files:
        found.append(
            Finding(
                "platform-tag-without-native-code",
                [wheel.path],
                "tagged for a platform but holds no native code; retag it "
                "`wheel tags --python-tag py3 --abi-tag none --platform-tag any`",
            )
        )
    if wheel.pure and wheel.native:
        found.append(
            Finding(
                "native-code-in-pure-wheel",
                [wheel.path],
                f"tagged py3-none-any but holds {len(wheel.native)} native files",
            )
        )
    elif wheel.root_is_purelib and wheel.native:
        found.append(
            Finding(
                "native-code-in-purelib",
                [wheel.path],
                f"WHEEL says Root-Is-Purelib: true but the wheel holds {len(wheel.native)} "
                "native file(s): installers put them in purelib, which is not platlib where "
                "the two differ (lib and lib64 on Fedora and RHEL); build it with "
                "Root-Is-Purelib: false",
            )
        )
    if wheel.name and wheel.wheel_tags:
        named = {str(t) for t in wheel.name.tags}
        if named != set(wheel.wheel_tags):
            found.append(
                Finding(
                    "tag-mismatch",
                    [wheel.path],
                    f"WHEEL Tag lines {sorted(wheel.wheel_tags)} differ from the file name's "
                    f"{sorted(named)}",
                )
            )
    return found


def _fix_reasons(report: AuditReport) -> dict[str, list[str]]:
    fixes: dict[str, list[str]] = defaultdict(list)
    for finding in [*report.unreadable, *report.findings]:
        if finding.kind in INFORMATIONAL or finding.kind == "label-without-native-code":
            continue
        if finding.kind == "same-name-different-bytes":
            continue  # decided per member by the collision pick
        for path in finding.wheels:
            fixes[path].append(f"{finding.kind}: {finding.detail}")
    return fixes


def _collisions(report: AuditReport, wheels: list[WheelInfo], order: Any) -> dict[str, str]:
    """Pick one wheel per colliding file name; returns the fix reason of every other one."""
    by_name: dict[str, list[WheelInfo]] = defaultdict(list)
    for wheel in wheels:
        by_name[wheel.filename].append(wheel)
    losers: dict[str, str] = {}
    for filename, same in sorted(by_name.items()):
        contents = len({w.sha256 for w in same})
        if contents < 2:
            continue
        report.findings.append(
            Finding(
                "same-name-different-bytes",
                [w.path for w in same],
                f"{len(same)} jobs produce {filename} with {contents} different contents; "
                "only one can be uploaded",
            )
        )
        ranked = sorted(same, key=order)
        keep = ranked[0]
        reason = "the preferred keeper of these jobs (docs/audit-format.md)"
        report.name_collisions.append(
            NameCollision(filename, [w.path for w in ranked], keep.path, reason)
        )
        for other in ranked[1:]:
            if other.sha256 != keep.sha256:
                losers[other.path] = (
                    f"same-name-different-bytes: {filename} is also built by {keep.path}, "
                    "the one picked to upload; give this build its own local label or build "
                    "tag, or disable the job"
                )
    return losers


def audit_matrix(
    wheels: list[WheelInfo],
    unreadable: Sequence[tuple[str, str]] = (),
    *,
    prefer: Sequence[str] = (),
) -> AuditReport:
    """Apply every rule and decide a verdict per wheel and per job.

    ``prefer``: globs over wheel paths or job names that win the keeper choice first.
    """
    report = AuditReport(list(wheels))
    report.unreadable = [Finding("unreadable", [path], detail) for path, detail in unreadable]
    for wheel in wheels:
        report.findings.extend(_per_wheel(wheel))
    fixes = _fix_reasons(report)
    order = keep_order(prefer, broken=set(fixes))
    for path, reason in _collisions(report, wheels, order).items():
        fixes[path].append(reason)

    groups: dict[tuple[str, str, str], list[WheelInfo]] = defaultdict(list)
    for wheel in wheels:
        if wheel.name is None:
            continue
        groups[(wheel.name.distribution, wheel.name.version.public, wheel.content_key)].append(
            wheel
        )
    dropped: dict[str, list[str]] = defaultdict(list)
    kept_for: dict[str, int] = {}
    for members in groups.values():
        if len(members) < 2:
            continue
        members.sort(key=order)
        keep = members[0]
        reason = "identical contents once the local version label is dropped"
        report.redundant_groups.append(RedundantGroup([w.path for w in members], keep.path, reason))
        kept_for[keep.path] = len(members) - 1
        for other in members[1:]:
            dropped[other.path].append(f"same contents as {keep.path}: a redundant build")
    for finding in report.findings:
        if finding.kind == "label-without-native-code":
            for path in finding.wheels:
                dropped[path].append(
                    "its accelerator label adds no native code; publish the pure wheel instead"
                )

    paths = [w.path for w in wheels] + [p for p, _ in unreadable]
    by_path = {w.path: w for w in wheels}
    for path in paths:
        if dropped.get(path):
            report.verdicts.append(Verdict(path, "drop", "; ".join(dropped[path])))
        elif fixes.get(path):
            report.verdicts.append(Verdict(path, "fix", "; ".join(fixes[path])))
        else:
            reason = _keep_reason(by_path[path])
            if path in kept_for:
                n = kept_for[path]
                reason += f"; kept for a group of {n + 1} identical builds"
            report.verdicts.append(Verdict(path, "keep", reason))
    report.jobs = job_verdicts([(v.wheel, v.verdict, v.reason) for v in report.verdicts])
    return report


def _keep_reason(wheel: WheelInfo) -> str:
    if not wheel.native and not wheel.gpu_files:
        return "pure Python"
    archs = sorted(
        {a for n in wheel.native for a in n.gpu_archs}
        | {a for g in wheel.gpu_files for a in g.archs},
        key=arch_order,
    )
    parts = []
    count = len(wheel.native)
    if count:
        parts.append(f"{count} native file{'s' if count != 1 else ''}")
    kpacks = [g for g in wheel.gpu_files if g.kind == "kpack"]
    if kpacks:
        kernels = sum(g.kernels for g in kpacks)
        parts.append(
            f"{len(kpacks)} kpack archive{'s' if len(kpacks) != 1 else ''} "
            f"({kernels} kernel{'s' if kernels != 1 else ''})"
        )
    others = len(wheel.gpu_files) - len(kpacks)
    if others:
        parts.append(f"{others} GPU code/database file{'s' if others != 1 else ''}")
    text = "unique contents: " + ", ".join(parts)
    if archs:
        text += f", GPU code for {', '.join(archs)}"
    if wheel.pure and not count and others:
        text += "; device code only (no host binary), so rightly tagged py3-none-any"
    split = sum(1 for n in wheel.native if n.kpack_kernel)
    if split:
        text += f"; {split} librar{'ies' if split != 1 else 'y'} load GPU code from .kpack archives"
    return text
