from __future__ import annotations

from typing import Any

from wheel_size.regressions.ranking.classify import Classified, categorize, score
from wheel_size.regressions.ranking.evidence import (
    CLEARED,
    CONFIRMED,
    LIKELY,
    assess,
    cross_variant,
)
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


def test_a_commit_with_no_files_listed_says_so_and_builds_make_it_likely() -> None:
    from wheel_size.regressions.ranking.evidence import with_build_status

    cross = cross_variant("cuda12_8", {"cuda12_8": 4.0, "cpu": 0.0})
    empty = Classified(Commit("c" * 40, "Merge", files=()), (), 0)
    got = assess(empty, variant="cuda12_8", cross=cross, window_mode="base", window_size=3,
                 relevant_candidates=1)  # fmt: skip
    assert got.status is None and "no changed files" in got.evidence
    after = with_build_status(got, LIKELY, "no build of cuda12_8 at cccccccccccc")
    assert after.status == LIKELY and "no build of cuda12_8" in after.evidence
