"""Cross-variant evidence and the seed's status vocabulary.

The seed's "Method B": the same night's change in every variant tells device code from
shared code. Growth in CUDA builds but not in the CPU build points to compiled CUDA code
(new kernel instantiations, CUTLASS kernels); growth everywhere points to shared C++ or
build configuration. Statuses are the seed's words and mean what the seed says: CONFIRMED,
NOT CONFIRMED and CLEARED come only from builds (a per-commit build, or the two nightlies
when they are builds of one commit and its parent); reading the code gives at most LIKELY,
or plain words ("ships no code") with no status.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from wheel_size.regressions.ranking.classify import CATEGORIES, Classified, is_device_only
from wheel_size.regressions.ranking.reach_table import ReachTable, default_table
from wheel_size.render.templates import render_macro
from wheel_size.variants import variant_key

__all__ = [
    "CLEARED",
    "CONFIRMED",
    "LIKELY",
    "NOT_CONFIRMED",
    "CrossVariant",
    "Status",
    "assess",
    "cross_variant",
    "pattern_bonus",
    "with_build_status",
]

CONFIRMED = "CONFIRMED"
LIKELY = "LIKELY"
NOT_CONFIRMED = "NOT CONFIRMED"
CLEARED = "CLEARED"

Pattern = Literal["device", "shared", "variant-only", "unknown", "drop"]

_DEVICE_CATEGORIES = {"cuda-kernels", "cutlass-fbgemm"}
_SHARED_CATEGORIES = {
    "compiler-flags",
    "new-compilation-units",
    "header-only-library",
    "build-image",
    "new-operators",
    "cpp-code",
}


@dataclass(frozen=True)
class CrossVariant:
    """The same night's delta for every variant, and what it suggests."""

    deltas: dict[str, float | None]  # variant -> MB (None: no data that night)
    pattern: Pattern
    reading: str  # one sentence, shown in the issue


def _flat(delta: float, jump: float) -> bool:
    return abs(delta) < max(0.25, 0.1 * abs(jump))


def cross_variant(variant: str, deltas: Mapping[str, float | None]) -> CrossVariant:
    """Read the seed's Method B from ``deltas`` (which includes ``variant`` itself)."""
    table = dict(sorted(deltas.items()))
    jump = table.get(variant)
    if jump is None:
        return CrossVariant(table, "unknown", _say("no_delta", variant=variant))
    if jump < 0:
        return CrossVariant(table, "drop", _say("shrank", variant=variant))
    key = variant_key(variant)
    # Like with like (issue 28 item 5): only builds of the same platform, Python ABI and
    # package are read against this one (no aarch64, libtorch or cp313t wheel as "the CPU").
    others = {
        v: d
        for v, d in table.items()
        if v != variant and d is not None and variant_key(v).like(key)
    }
    kind = key.kind
    cpu = {v: d for v, d in others.items() if variant_key(v).kind == "cpu"}
    if kind == "cpu":
        gpu = {v: d for v, d in others.items() if variant_key(v).kind in ("cuda", "rocm", "xpu")}
        if gpu and all(not _flat(d, jump) and d > 0 for d in gpu.values()):
            return CrossVariant(table, "shared", _say("cpu_and_gpu"))
        if gpu and all(_flat(d, jump) for d in gpu.values()):
            return CrossVariant(table, "variant-only", _say("cpu_only"))
        return CrossVariant(table, "unknown", _say("no_pattern"))
    if not cpu:
        return CrossVariant(table, "unknown", _say("no_cpu"))
    cpu_grew = any(not _flat(d, jump) and d > 0 for d in cpu.values())
    if cpu_grew:
        return CrossVariant(table, "shared", _say("cpu_too"))
    same_kind = {v: d for v, d in others.items() if variant_key(v).kind == kind}
    if same_kind and all(_flat(d, jump) for d in same_kind.values()):
        return CrossVariant(table, "variant-only", _say("variant_only", variant=variant, kind=kind))
    return CrossVariant(table, "device", _say("device", kind=kind))


def _say(words: str, **values: object) -> str:
    """A status's or a reading's words: the macro ``words`` of ``candidate_status.txt.j2``."""
    return render_macro("candidate_status.txt.j2", words, **values)


def pattern_bonus(categories: tuple[str, ...], pattern: Pattern) -> int:
    """Ranking bonus for categories that fit the cross-variant pattern."""
    found = set(categories)
    if pattern == "device" and found & _DEVICE_CATEGORIES:
        return 10
    if pattern == "shared" and found & (_SHARED_CATEGORIES - {"cpp-code"}):
        return 10
    if pattern == "variant-only" and found & {"build-image", "compiler-flags"}:
        return 10
    return 0


_NO_DATA = re.compile(r"^no per-commit size data;\s*", re.I)
_NO_BUILD_YET = re.compile(r"[;.]?\s*no per-commit build to confirm it\.?$", re.I)


@dataclass(frozen=True)
class Status:
    status: str | None  # one of the four, or None: not assessed
    evidence: str


def assess(
    item: Classified,
    *,
    variant: str,
    cross: CrossVariant,
    window_mode: str,
    window_size: int,
    relevant_candidates: int,
    covers_moved: bool | None = None,
    table: ReachTable | None = None,
) -> Status:
    """The status of one candidate and the evidence it rests on.

    ``window_size`` is the number of commits in the window before revert pairs were
    removed; ``relevant_candidates`` how many candidates are in a size-relevant category;
    ``covers_moved`` whether its changed files can move every variant that moved (None:
    unknown). A commit that reaches only some of them does not "match" the night's pattern,
    whatever its category: a CUDA-only flag change does not explain the CPU wheel's growth.
    ``table``: the reach table its paths are read through (None: the packaged one).
    """
    commit, categories = item.commit, set(item.categories)
    if window_mode == "base" and window_size == 1 and categories == {"docs-tests-only"}:
        return Status(CLEARED, _say("cleared_nightlies"))
    if categories == {"docs-tests-only"}:
        return Status(None, _say("docs_only"))
    if (
        variant_key(variant).kind == "cpu"
        and commit.files is not None
        and is_device_only(commit.files, table)
    ):
        return Status(None, _say("gpu_only"))
    if window_mode == "base" and window_size == 1:
        return Status(CONFIRMED, _say("only_commit"))
    if categories == {"python-only"}:
        return Status(None, _say("python_only"))
    if commit.files is None:
        return Status(None, _say("files_unchecked"))
    if not commit.files:
        return Status(None, _say("no_files"))
    weight = max((CATEGORIES[c].weight for c in categories), default=0)
    fits = (cross.pattern == "device" and categories & _DEVICE_CATEGORIES) or (
        cross.pattern == "shared" and categories & (_SHARED_CATEGORIES - {"cpp-code"})
    )
    if fits and weight >= 50 and covers_moved is not False:
        titles = sorted(CATEGORIES[c].title for c in categories)
        return Status(LIKELY, _say("pattern_match", categories=titles, reading=cross.reading))
    if relevant_candidates == 1 and weight >= 50:
        return Status(LIKELY, _say("only_relevant", partial=covers_moved is False))
    if (
        cross.pattern == "device"
        and categories <= {"cpp-code", "python-only"}
        and is_host_only(item, table)
    ):
        return Status(None, _say("host_only"))
    return Status(None, _say("no_data"))


def is_host_only(item: Classified, table: ReachTable | None = None) -> bool:
    """No changed file is a GPU source or names CUDA (the reach table's ``device_file`` and
    ``names_cuda``)."""
    files = item.commit.files
    if not files:
        return False
    t = table or default_table()
    return not any(
        t.match("device_file", f.filename) or t.match("names_cuda", f.filename) for f in files
    )


def with_build_status(current: Status, build_status: str, build_reason: str) -> Status:
    """A candidate's one status, once the window's builds were read (issue 28 item 4).

    A status the builds decided (CONFIRMED / NOT CONFIRMED / CLEARED) replaces one read from
    the code: measured data wins. A build verdict of LIKELY means no build decides it: the
    code's status stays as it was (LIKELY only where the code evidence was strong; plain
    words stay plain; a status resting on the nightlies keeps its word), with the builds'
    reason ("not looked up: …", "one of 3 commits between …") in place of the code's "no
    per-commit size data" or "no per-commit build to confirm it".
    """
    if build_status != LIKELY:
        return Status(build_status, build_reason)
    code = _NO_DATA.sub("", _NO_BUILD_YET.sub("", current.evidence.rstrip("."))).strip()
    reason = build_reason.rstrip(".")
    return Status(current.status, f"{code}; {reason}" if code else reason)
