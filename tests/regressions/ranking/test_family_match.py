"""Kernel families as content evidence: only a source named after a moved family, or changed
lines naming its function, count; generic names, other directions and small shares do not."""

from __future__ import annotations

from wheel_size.regressions.ranking.content_facts import (
    ContentFacts,
    FamilyFact,
    families_from_json,
)
from wheel_size.regressions.ranking.fingerprint import fingerprint
from wheel_size.regressions.ranking.rank import score_commit
from wheel_size.regressions.window.commits import Commit, files_from_api

MB = 1_048_576
FP = fingerprint("cuda12_8", {"cuda12_8": 14.6, "cpu": 0.0})
REDUCE = FamilyFact("at::native::(anonymous namespace)::reduce_kernel<…>", int(14.6 * MB), 7)


def _facts(*families: FamilyFact, rest: int = 0) -> ContentFacts:
    return ContentFacts(
        delta=int(15 * MB), device_delta=int(15 * MB), families=list(families),
        families_rest={1: rest},
    )  # fmt: skip


def _why(path: str, patch: str = "", facts: ContentFacts | None = None) -> str:
    entry = {"filename": path, "status": "modified", "additions": 10, "patch": patch}
    commit = Commit("a" * 40, "Change things (#1)", files=files_from_api([entry]))
    ranked = score_commit(commit, FP, facts or _facts(REDUCE))
    return "; ".join(r.text for r in ranked.reasons if "kernel family" in r.text)


def test_file_named_after_the_family() -> None:
    for path in ("aten/src/ATen/native/cuda/Reduce.cuh", "aten/src/ATen/native/ReduceKernel.cu"):
        why = _why(path)
        assert why.startswith("the kernel family at::native::(anonymous namespace)::reduce_kernel")
        assert "grew by 14.6 MB in 7 architectures" in why


def test_changed_lines_naming_the_function() -> None:
    patch = "@@ -1 +1 @@\n-  reduce_kernel<512, 1>(op);\n+  reduce_kernel<256, 2>(op);\n"
    assert "its changes to Blas.cu name reduce_kernel" in _why("aten/x/Blas.cu", patch)


def test_nothing_else_counts() -> None:
    assert _why("aten/src/ATen/native/cuda/Kernel.cu") == ""  # generic words only
    assert _why("aten/src/ATen/native/cuda/ReduceOps.cpp") == ""  # not the family's words
    assert _why("tools/reduce.py", "@@ -1 +1 @@\n+reduce_kernel = 1\n") == ""  # not C++/CUDA
    assert _why("cmake/Reduce.cmake") == ""
    shrunk = FamilyFact(REDUCE.name, -REDUCE.delta, 7)
    assert _why("aten/src/ATen/native/cuda/Reduce.cuh", facts=_facts(shrunk)) == ""
    # a family with less than a tenth of what the families moved is no evidence
    small = FamilyFact(REDUCE.name, MB // 2, 7)
    assert _why("aten/src/ATen/native/cuda/Reduce.cuh", facts=_facts(small, rest=14 * MB)) == ""
    kernel2 = FamilyFact("cutlass::Kernel2<…>", 8 * MB, 4)  # a generic function name
    assert _why("third_party/cutlass/Kernel2.cu", facts=_facts(kernel2)) == ""
    unattributed = FamilyFact("(unattributed)", 8 * MB, 4)
    assert _why("src/Unattributed.cu", facts=_facts(unattributed)) == ""


def test_one_reason_for_several_matches() -> None:
    other = FamilyFact("at::native::reduce_kernel_big<…>", 3 * MB, 7)
    facts = _facts(REDUCE, other)
    assert _why("aten/src/ATen/native/cuda/Reduce.cuh", facts=facts).count("kernel family") == 1


def test_stored_families_are_read_leniently() -> None:
    families, rest = families_from_json(
        {
            "grown": [{"name": "axpy<…>", "old_bytes": 0, "new_bytes": 10, "archs": ["sm_80"]},
                      {"name": 3}, "junk"],
            "shrunk": "no",
            "more_grown_bytes": 7,
        }
    )  # fmt: skip
    assert families == [FamilyFact("axpy<…>", 10, 1)] and rest == {1: 7, -1: 0}
    assert families_from_json(None) == ([], {})
