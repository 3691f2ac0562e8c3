"""One test per ranking signal: fingerprint, reach, text, patch scope, content facts."""

from __future__ import annotations

from wheel_size.regressions.ranking.content_facts import facts_from_diff_json
from wheel_size.regressions.ranking.fingerprint import fingerprint
from wheel_size.regressions.ranking.rank import rank_commits, score_commit
from wheel_size.regressions.ranking.reach import reach_of
from wheel_size.regressions.window.commits import ChangedFile, Commit, files_from_api
from wheel_size.regressions.window.text_signals import mentions, patch_terms, read_text
from wheel_size.variants import variant_key

NIGHT_12X = {
    "cpu": 0.0,
    "cuda12_6": -29.5,
    "cuda12_8": -29.7,
    "cuda12_9": -29.8,
    "cuda13_0": 0.02,
    "rocm6_4": 0.0,
    "rocm7_0": -0.01,
}


def commit(title: str, *files: dict[str, object], sha: str = "a") -> Commit:
    entries = [{"status": "modified", "additions": 1, "deletions": 1, **f} for f in files]
    return Commit(sha=sha * 40, message=title, files=files_from_api(entries))


# -- fingerprint ----------------------------------------------------------------------------


def test_variant_keys() -> None:
    assert (variant_key("cuda12_8").kind, variant_key("cuda12_8").version) == ("cuda", "12.8")
    assert (variant_key("rocm7_0").kind, variant_key("rocm7_0").version) == ("rocm", "7.0")
    key = variant_key("py3_14-cuda13_0")
    assert (key.kind, key.version, key.python) == ("cuda", "13.0", "3.14")
    assert variant_key("cpu-aarch64").os == "aarch64"
    assert variant_key("xpu").kind == "xpu"


def test_fingerprint_of_a_cuda_12x_shrink() -> None:
    fp = fingerprint("cuda12_8", NIGHT_12X)
    assert fp.direction == -1 and fp.large
    assert [k.name for k in fp.moved] == ["cuda12_6", "cuda12_8", "cuda12_9"]
    assert fp.scope() == "CUDA 12.6, 12.8, 12.9"
    reading = fp.reading()
    assert "shrank" in reading and "CPU wheel did not shrink" in reading
    assert "bundled library" in reading and "for growth" not in reading


def test_fingerprint_everything_grew_and_one_variant_alone() -> None:
    fp = fingerprint("cuda12_8", {"cpu": 1.4, "cuda12_8": 4.3, "rocm6_4": 9.6})
    assert fp.scope() == "every variant" and fp.reading().startswith("Every variant grew")
    alone = fingerprint("cuda12_8", {"cuda12_8": 4.3, "cpu": None})
    assert "cannot be told apart" in alone.reading() and alone.missing == ("cpu",)


# -- reach ----------------------------------------------------------------------------------

CUDA_KEYS = [variant_key(v) for v in ("cuda12_6", "cuda12_8", "cuda12_9", "cuda13_0")]


def test_tests_docs_and_ci_ship_nothing() -> None:
    for path in (
        "test/test_cuda.py",
        "docs/source/notes/cuda.rst",
        ".github/workflows/trunk.yml",
        ".ci/pytorch/test.sh",
        "benchmarks/dynamo/huggingface.py",
        "third_party/cutlass/test/unit/gemm.cu",
    ):
        reach = reach_of([ChangedFile(path, "modified")])
        assert not reach.ships, path
    # ... but the binary build matrix and the manywheel scripts build wheels.
    assert reach_of([ChangedFile(".github/scripts/generate_binary_build_matrix.py", "m")]).ships
    assert reach_of([ChangedFile(".ci/manywheel/build_cuda.sh", "modified")]).native


def test_platform_paths_cannot_move_other_variants() -> None:
    rocm = reach_of([ChangedFile("cmake/public/LoadHIP.cmake", "modified")])
    assert all(rocm.strength(k) == 0 for k in CUDA_KEYS)
    assert rocm.strength(variant_key("rocm7_0")) == 1
    windows = reach_of([ChangedFile(".ci/pytorch/windows/internal/copy.bat", "modified")])
    assert windows.strength(variant_key("cuda12_8")) == 0
    assert windows.strength(variant_key("win-cuda12_8")) == 1
    # CUDA sources are hipified: they build into the ROCm wheels too. Which one a change
    # moves depends on guards, so a flat CUDA or ROCm wheel is no evidence against it.
    cu = reach_of([ChangedFile("aten/src/ATen/native/cuda/Reduce.cu", "modified")])
    assert cu.strength(variant_key("cuda12_8")) == 1
    assert cu.strength(variant_key("rocm6_4")) == 1
    assert cu.strength(variant_key("cpu")) == 0
    assert cu.bulk_strength(variant_key("rocm6_4")) == 0
    assert cu.bulk_strength(variant_key("cuda12_8")) == 0


def test_build_script_scoped_to_toolkit_versions() -> None:
    patch = (
        "@@ -52,9 +52,9 @@ case ${CUDA_VERSION} in\n     12.8|12.9)\n"
        '-        TORCH_CUDA_ARCH_LIST="5.0;6.0;7.0;8.0;9.0;12.0+PTX"\n'
        '+        TORCH_CUDA_ARCH_LIST="7.0;8.0;9.0;12.0+PTX"\n'
    )
    files = files_from_api([{"filename": ".ci/manywheel/build_cuda.sh", "patch": patch}])
    terms = files[0].terms
    assert terms.scope == {"cuda:12.8", "cuda:12.9"}
    assert terms.archs_removed == {"sm_50", "sm_60"} and not terms.archs_added
    reach = reach_of(files)
    assert [k.name for k in CUDA_KEYS if reach.strength(k)] == ["cuda12_8", "cuda12_9"]


def test_patch_scope_forms() -> None:
    assert patch_terms("@@ -1 +1 @@ if [[ $CUDA_VERSION == 13* ]]; then\n+ x\n").scope == {
        "cuda:13.*"
    }
    assert patch_terms("@@ -5,7 +5,7 @@\n-ROCM_VERSION=6.4.2\n+ROCM_VERSION=6.4.3\n").scope == {
        "rocm:6.4"
    }
    rocm_case = '@@ -1 +1 @@ case "${ROCM_VERSION}" in\n     7.0)\n+  ARCH=gfx950\n'
    assert patch_terms(rocm_case).scope == {"rocm:7.0"}
    assert patch_terms('@@ -1 +1 @@\n-    "librocm_smi64.so"\n').scope == set()
    assert patch_terms("@@ -1 +1 @@ if(USE_ROCM)\n+  set(X 1)\n").scope == {"rocm:*"}
    at_least = "@@ -1 +1 @@ if(CUDA_VERSION VERSION_GREATER_EQUAL 12.9)\n+ set(A 1)\n"
    assert patch_terms(at_least).scope == {"cuda:>=12.9"}


def test_only_deleting_headers_is_dead_code() -> None:
    assert reach_of([ChangedFile("aten/src/THC/THCNumerics.cuh", "removed")]).dead_headers
    assert not reach_of(
        [ChangedFile("a/x.cuh", "removed"), ChangedFile("a/y.cu", "modified")]
    ).dead_headers


# -- text -----------------------------------------------------------------------------------


def test_verbs_carry_no_weight() -> None:
    """Real culprits often say the opposite of their effect (pytorch/pytorch#164894 "Remove
    forcing of -O2" grew every wheel): verbs are not evidence, on either night."""
    fp_growth = fingerprint("cuda12_8", {"cpu": 3.0, "cuda12_8": 4.0})
    fp_shrink = fingerprint("cuda12_8", {"cpu": -3.0, "cuda12_8": -4.0})
    files = {"filename": "aten/src/ATen/native/TensorShape.cpp", "additions": 40}
    for fp in (fp_growth, fp_shrink):
        add = score_commit(commit("Add a fast path to cat", files, sha="a"), fp)
        remove = score_commit(commit("Remove a fast path from cat", files, sha="b"), fp)
        assert add.evidence_key() == remove.evidence_key()


def test_versions_archs_and_libraries_in_titles() -> None:
    m = mentions("Trim the arch list of the 12.8/12.9 manywheel builds")
    assert m.cuda_versions == {"12.8", "12.9"}
    assert mentions("Stop bundling cuSPARSELt in CUDA 12.x wheels").cuda_versions == {"12.*"}
    assert mentions("[ROCm] Use ROCm 7 packages").rocm_versions == {"7.*"}
    assert mentions("Use gcc 13.2 for Python 3.13.1 builds").cuda_versions == set()
    assert mentions("Build NVSHMEM for CUDA 12.9+").cuda_versions == {">=12.9"}
    m = mentions("Drop sm_50 and gfx906; bundle rccl, aotriton and NCCL")
    assert m.archs == {"sm_50", "gfx906"} and {"rccl", "aotriton", "nccl"} <= m.libraries
    assert mentions("[ROCm] Fix the CK build").tagged == {"rocm"}
    assert mentions("Add NVFP4 grouped GEMM").archs == {"sm_100"}  # Blackwell only


def test_size_class_of_titles() -> None:
    assert read_text("Bundle hipSPARSELt in the ROCm wheels").magnitude == "large"
    assert read_text("Drop sm_50 from the 12.8 arch list").magnitude == "large"
    assert read_text("Add BF16 grouped_mm kernels for sm_90").magnitude == "small"
    assert read_text("[ROCm] Bump AOTriton to 0.11.1b").magnitude == "large"
    assert read_text("Use -O3 for torch_cuda").magnitude == "small"


# -- content facts --------------------------------------------------------------------------


def test_content_facts_from_a_diff() -> None:
    diff = {
        "comparisons": [
            {
                "total": {"old_installed": 100 << 20, "new_installed": 40 << 20},
                "files": [
                    {
                        "path": "torch/lib/libcusparseLt-f8b4a9fb.so.0",
                        "status": "removed",
                        "old_installed": 30 << 20,
                        "new_installed": 0,
                    },
                    {
                        "path": "torch/lib/libtorch_cuda.so",
                        "status": "changed",
                        "old_installed": 70 << 20,
                        "new_installed": 40 << 20,
                        "sections": [
                            {"name": ".nv_fatbin", "old_size": 60 << 20, "new_size": 30 << 20}
                        ],
                        "gpu": [
                            {"kind": "cuda", "arch": "sm_50", "image": "sass", "old_entries": 9,
                             "new_entries": 0, "old_bytes": 30 << 20, "new_bytes": 0},
                            {"kind": "cuda", "arch": "sm_90", "image": "sass", "old_entries": 9,
                             "new_entries": 9, "old_bytes": 30 << 20, "new_bytes": 30 << 20},
                        ],
                    },
                ],
            }
        ]
    }  # fmt: skip
    facts = facts_from_diff_json(diff)
    assert facts is not None
    assert facts.libraries_removed == {"cusparselt": "torch/lib/libcusparseLt-f8b4a9fb.so.0"}
    assert facts.archs_removed == {"sm_50"} and facts.archs_both == {"sm_90"}
    assert facts.delta == -60 << 20
    assert facts_from_diff_json(None) is None and facts_from_diff_json({"x": 1}) is None


# -- combined: the issue's own examples -----------------------------------------------------


def test_cuda_only_night_ranks_platform_and_test_decoys_low() -> None:
    fp = fingerprint("cuda12_8", {"cpu": 0.0, "cuda12_8": 2.3, "cuda12_6": 2.1, "rocm6_4": 0.0})
    rocm = commit(
        "[ROCm] Find hipBLASLt in CMake", {"filename": "cmake/public/LoadHIP.cmake"}, sha="1"
    )
    tests = commit("[CUDA] Add reduction tests", {"filename": "test/test_reductions.py"}, sha="2")
    kernel = commit(
        "Instantiate gpu_reduce_kernel for Half",
        {"filename": "aten/src/ATen/native/cuda/ReduceSumProdKernel.cu"},
        sha="3",
    )
    ranked = rank_commits([rocm, tests, kernel], fp)
    assert [r.commit.sha[0] for r in ranked] == ["3", "1", "2"]
    assert "cannot move" in ranked[1].why() and "ships in no wheel" in ranked[2].why()


def test_shrink_of_12x_ranks_the_unbundling_first() -> None:
    fp = fingerprint("cuda12_8", NIGHT_12X)
    patch = (
        "@@ -118,7 +118,6 @@ if [[ $CUDA_VERSION == 12* ]]; then\n"
        '-        "/usr/local/cuda/lib64/libcusparseLt.so.0"\n'
    )
    culprit = commit(
        "[CI] Stop bundling cuSPARSELt in CUDA 12.x wheels",
        {"filename": ".ci/manywheel/build_cuda.sh", "patch": patch},
        sha="c",
    )
    refactor = commit(
        "[JIT] Delete unused passes",
        {"filename": "torch/csrc/jit/passes/a.cpp", "status": "removed", "deletions": 900},
        sha="d",
    )
    growth = commit(
        "[CUDA] Add a fused SwiGLU kernel", {"filename": "aten/src/ATen/native/cuda/S.cu"}, sha="e"
    )
    ranked = rank_commits([refactor, growth, culprit], fp)
    assert ranked[0].commit.sha[0] == "c"
    why = ranked[0].why()
    assert why.startswith("reach: ") and "CUDA 12" in why
