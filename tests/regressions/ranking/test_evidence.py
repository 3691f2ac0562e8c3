from __future__ import annotations

from typing import Any

from wheel_size.regressions.ranking.classify import Classified, categorize, score
from wheel_size.regressions.ranking.evidence import (
    CLEARED,
    CONFIRMED,
    LIKELY,
    Status,
    assess,
    cross_variant,
    with_build_status,
)
from wheel_size.regressions.ranking.fingerprint import fingerprint
from wheel_size.regressions.ranking.rank import rank_commits
from wheel_size.regressions.window.commits import ChangedFile, Commit


def item(*files: str, message: str = "change") -> Classified:
    commit = Commit(
        sha="a" * 40, message=message, files=tuple(ChangedFile(f, "modified") for f in files)
    )
    cats = categorize(commit)
    return Classified(commit, cats, score(cats))


def test_cuda_only_growth_is_device_code() -> None:
    cross = cross_variant("cuda12_8", {"cuda12_8": 2.25, "cuda12_6": 2.10, "cpu": 0.009})
    assert cross.pattern == "device"
    assert "device code" in cross.reading


def test_growth_everywhere_is_shared() -> None:
    cross = cross_variant("cuda12_8", {"cuda12_8": 4.28, "cpu": 1.4, "xpu": 3.0})
    assert cross.pattern == "shared"


def test_no_cpu_data_is_unknown_and_only_this_variant() -> None:
    assert cross_variant("cuda12_8", {"cuda12_8": 4.0, "cpu": None}).pattern == "unknown"
    only = cross_variant("cuda12_8", {"cuda12_8": 4.0, "cuda12_6": 0.0, "cpu": 0.0})
    assert only.pattern == "variant-only"


def test_statuses_follow_the_evidence() -> None:
    device = cross_variant("cuda12_8", {"cuda12_8": 2.25, "cpu": 0.0})
    kwargs: dict[str, Any] = {
        "variant": "cuda12_8",
        "cross": device,
        "window_mode": "base",
        "window_size": 5,
    }
    kernel = assess(item("aten/src/ATen/native/cuda/Reduce.cuh"), relevant_candidates=2, **kwargs)
    assert kernel.status == LIKELY and "CPU wheel did not grow" in kernel.evidence
    # Without a build, the seed's build-log words are never used: plain words instead.
    docs = assess(item("docs/index.md"), relevant_candidates=2, **kwargs)
    assert docs.status is None and docs.evidence.startswith("ships no code")
    py = assess(item("torch/a.py"), relevant_candidates=2, **kwargs)
    assert py.status is None and "kilobytes" in py.evidence
    host = assess(item("c10/core/Allocator.cpp"), relevant_candidates=2, **kwargs)
    assert host.status is None and "CPU wheel" in host.evidence
    unfetched = Classified(Commit("b" * 40, "x"), ("unknown",), 20)
    assert assess(unfetched, relevant_candidates=2, **kwargs).status is None


def test_single_commit_window_is_confirmed_but_not_after_a_fallback() -> None:
    cross = cross_variant("cuda12_8", {"cuda12_8": 4.0})
    one = item("c10/core/Allocator.cpp")
    got = assess(
        one,
        variant="cuda12_8",
        cross=cross,
        window_mode="base",
        window_size=1,
        relevant_candidates=0,
    )
    assert got.status == CONFIRMED
    got = assess(
        one,
        variant="cuda12_8",
        cross=cross,
        window_mode="head",
        window_size=1,
        relevant_candidates=0,
    )
    assert got.status != CONFIRMED


def test_gpu_only_commit_is_plainly_out_of_a_cpu_jump() -> None:
    cross = cross_variant("cpu", {"cpu": 1.5, "cuda12_8": 0.0})
    got = assess(
        item("aten/src/ATen/native/cuda/Reduce.cu"),
        variant="cpu",
        cross=cross,
        window_mode="base",
        window_size=3,
        relevant_candidates=1,
    )
    assert got.status is None and "not in the CPU wheel" in got.evidence


def test_a_lone_docs_commit_is_cleared_not_confirmed() -> None:
    cross = cross_variant("cuda12_8", {"cuda12_8": 4.0})
    got = assess(item("docs/index.md"), variant="cuda12_8", cross=cross, window_mode="base",
                 window_size=1, relevant_candidates=0)  # fmt: skip
    assert got.status == CLEARED


def test_a_commit_with_no_files_listed_says_so_and_no_build_makes_it_likely() -> None:
    """Issue 28: LIKELY only where the code evidence is strong; a build lookup that finds
    nothing adds its reason, not a status."""
    from wheel_size.regressions.ranking.evidence import with_build_status

    cross = cross_variant("cuda12_8", {"cuda12_8": 4.0, "cpu": 0.0})
    empty = Classified(Commit("c" * 40, "Merge", files=()), (), 0)
    got = assess(empty, variant="cuda12_8", cross=cross, window_mode="base", window_size=3,
                 relevant_candidates=1)  # fmt: skip
    assert got.status is None and "no changed files" in got.evidence
    after = with_build_status(got, LIKELY, "no build of cuda12_8 at cccccccccccc")
    assert after.status is None and "no build of cuda12_8" in after.evidence


def test_a_commit_reaching_only_some_of_what_moved_does_not_match_the_pattern() -> None:
    """Every variant grew (the CPU wheel too); a CUDA-only flag change cannot explain the CPU,
    ROCm and XPU wheels, so its category alone does not make it LIKELY."""
    shared = cross_variant("cuda12_8", {"cuda12_8": 4.0, "cpu": 1.4, "rocm6_4": 6.8, "xpu": 3.1})
    flags = item("cmake/public/cuda.cmake", message="Build CUDA kernels with -O3")
    kwargs: dict[str, Any] = {
        "variant": "cuda12_8",
        "cross": shared,
        "window_mode": "base",
        "window_size": 5,
    }
    assert "compiler-flags" in flags.categories
    matched = assess(flags, relevant_candidates=2, covers_moved=True, **kwargs)
    assert matched.status == LIKELY and "match the cross-variant pattern" in matched.evidence
    # the categories by their titles, as the Labels column shows them, not internal keys
    assert "(Compiler flags / CMake options" in matched.evidence
    assert "compiler-flags" not in matched.evidence
    partial = assess(flags, relevant_candidates=2, covers_moved=False, **kwargs)
    assert partial.status is None
    alone = assess(flags, relevant_candidates=1, covers_moved=False, **kwargs)
    assert alone.status == LIKELY
    assert "reach only some of the variants that moved" in alone.evidence
    assert "match the cross-variant pattern" not in alone.evidence


def test_covers_moved_is_read_from_the_files_not_the_title() -> None:
    """A hipified .cu file whose title names CUDA still reaches the ROCm wheels."""
    moved = {"cuda12_8": 5.0, "cuda12_6": 4.9, "rocm6_4": 5.1, "cpu": 0.0}
    fp = fingerprint("cuda12_8", moved, jumped=True, threshold_mb=3.0)
    sort = Commit(
        sha="c" * 40,
        message="[CUDA] Remove dead #ifdefs in Sort.cu",
        files=(ChangedFile("aten/src/ATen/native/cuda/Sort.cu", "modified", 40, 10),),
    )
    flags = Commit(
        sha="d" * 40,
        message="Build CUDA kernels with -O3",
        files=(ChangedFile("cmake/public/cuda.cmake", "modified", 2, 2),),
    )
    ranked = {r.commit.sha[0]: r for r in rank_commits([sort, flags], fp)}
    assert ranked["c"].covers_moved is True
    assert ranked["d"].covers_moved is False
    # The title's CUDA narrows the hipified file's reach, but ROCm stays within it.
    assert "can move all that moved" in ranked["c"].why()
    assert "can move only" in ranked["d"].why()


def test_a_build_lookup_reason_replaces_the_codes_no_build_clause() -> None:
    """The builds' reason says why nothing confirms it; the code's "no per-commit build to
    confirm it" is not said a second time beside it."""
    code = Status(LIKELY, "the only commit in the window; no per-commit build to confirm it")
    got = with_build_status(code, LIKELY, "no build of cuda12_8 at abc")
    assert got.status == LIKELY
    assert got.evidence == "the only commit in the window; no build of cuda12_8 at abc"


def test_no_per_commit_size_data_is_not_said_when_builds_were_read() -> None:
    """Issue 28: never "no per-commit size data" beside the builds' own reason."""
    code = Status(None, "no per-commit size data; ranked by the files it changed")
    got = with_build_status(code, LIKELY, "not looked up: no build of this variant inside")
    assert got.status is None
    assert "no per-commit size data" not in got.evidence
    assert got.evidence.endswith("not looked up: no build of this variant inside")


def test_a_cpu_change_under_the_bar_is_not_said_to_be_none() -> None:
    """Oct 30 of the quick start: the table shows cpu +0.19 MB; the reading said "The CPU
    wheel did not grow." beside it. It now gives the number and why it does not count."""
    deltas = {"cpu": 0.19, "cuda12_6": 3.5, "cuda12_8": 3.77, "rocm6_4": 1.07, "xpu": 0.4}
    reading = fingerprint("cuda12_8", deltas).reading()
    assert "The CPU wheel did not grow (+0.19 MB: too little to count as moving with it)." in (
        reading
    )
    still = fingerprint("cuda12_8", {**deltas, "cpu": 0.001}).reading()
    assert "The CPU wheel did not grow. " in still
