"""The evidence model (issue 18): the reach table as data, tiers that text cannot overturn,
"no clear culprit", nights without a jump, free-threaded Python tags."""

from __future__ import annotations

from pathlib import Path

import pytest

from wheel_size.errors import InputError
from wheel_size.regressions.ranking.content_facts import facts_from_diff_json
from wheel_size.regressions.ranking.fingerprint import fingerprint
from wheel_size.regressions.ranking.rank import leading_group, rank_commits, score_commit
from wheel_size.regressions.ranking.reach import reach_of
from wheel_size.regressions.ranking.reach_table import default_table, load_reach_table
from wheel_size.regressions.window.commits import Commit, files_from_api
from wheel_size.regressions.window.text_signals import patch_terms
from wheel_size.variants import canonical_python, variant_key

ROCM_ONLY = {"cpu": 0.0, "cuda12_8": 0.02, "cuda13_0": 0.0, "rocm6_4": 8.1, "rocm7_0": 8.4}
CUDA_129 = {"cpu": 0.0, "cuda12_6": 0.0, "cuda12_8": 0.0, "cuda12_9": 11.8, "rocm7_0": 0.0}


def commit(title: str, *files: dict[str, object], sha: str = "a") -> Commit:
    entries = [{"status": "modified", "additions": 10, "deletions": 1, **f} for f in files]
    return Commit(sha=sha * 40, message=title, files=files_from_api(entries))


# -- the reach table --------------------------------------------------------------------------


def test_hipified_cuda_sources_can_move_a_rocm_only_night() -> None:
    """A .cu change under aten/src/ATen/native/cuda builds into the ROCm wheels too: it is
    not ruled out of a ROCm-only growth, and the flat CUDA wheels do not count against it."""
    fp = fingerprint("rocm7_0", ROCM_ONLY)
    path = "aten/src/ATen/native/cuda/IndexKernel.cu"
    kernel = score_commit(commit("Add a vectorized path to index_put", {"filename": path}), fp)
    reasons = " ".join(r.text for r in kernel.reasons)
    assert kernel.tier_points("reach") > 0, reasons
    assert "cannot move" not in reasons and "would also move" not in reasons


def test_a_rocm_guard_in_the_changed_lines_keeps_hipified_code_to_rocm() -> None:
    patch = "@@ -1,3 +1,5 @@\n+#if defined(USE_ROCM)\n+__global__ void k() {}\n+#endif\n"
    reach = reach_of(
        files_from_api([{"filename": "aten/src/ATen/native/cuda/K.cu", "status": "modified",
                         "patch": patch}])
    )  # fmt: skip
    assert reach.strength(variant_key("rocm7_0")) == 1
    assert reach.strength(variant_key("cuda12_8")) == 0


def test_a_build_image_moves_exactly_the_toolkits_its_commit_names() -> None:
    fp = fingerprint("cuda12_9", CUDA_129)
    image = {"filename": ".ci/docker/common/install_cuda.sh", "additions": 12, "deletions": 8}
    message = "[CD] Update the manylinux builder images\n\nMoves the CUDA 12.9 builder to 12.9.1."
    named = score_commit(commit(message, image), fp)
    texts = " ".join(r.text for r in named.reasons)
    assert "would also move" not in texts and "matches exactly what moved" in texts
    unnamed = score_commit(commit("[CD] Update the manylinux builder images", image), fp)
    assert "would also move" in " ".join(r.text for r in unnamed.reasons)
    assert named.tier_points("reach") > unnamed.tier_points("reach")


def test_submodule_bumps_move_the_libraries_that_link_them() -> None:
    fp = fingerprint("cuda12_8", {"cpu": 0.0, "cuda12_8": 6.3, "rocm7_0": 0.0})
    bumps = [
        commit(f"Update the {name} submodule", {"filename": f"third_party/{name}", "patch":
               "@@ -1 +1 @@\n-Subproject commit a\n+Subproject commit b"}, sha=sha)
        for name, sha in (("kineto", "k"), ("pybind11", "p"), ("cutlass", "c"))
    ]  # fmt: skip
    ranked = rank_commits(bumps, fp)
    assert ranked[0].commit.sha[0] == "c"
    assert len({r.evidence_key() for r in ranked}) > 1  # a trio does not score identically
    table = default_table()
    assert table.submodule("third_party/composable_kernel").kind == "rocm"  # type: ignore[union-attr]
    assert table.libraries_of("third_party/cutlass") == ("torch_cuda",)


def test_a_project_overrides_the_table(tmp_path: Path) -> None:
    path = tmp_path / "reach.yaml"
    path.write_text(
        "submodules:\n  mylib: {kind: xpu, libraries: [torch_xpu]}\n"
        "patterns:\n  no_ship: ['^internal/']\n",
        encoding="utf-8",
    )
    table = load_reach_table(path)
    assert table.submodule("third_party/mylib").kind == "xpu"  # type: ignore[union-attr]
    assert table.submodule("third_party/cutlass") is not None  # the packaged entries stay
    reach = reach_of(files_from_api([{"filename": "internal/a.cpp", "status": "modified"}]), table)
    assert not reach.ships
    assert reach_of(files_from_api([{"filename": "internal/a.cpp", "status": "modified"}])).ships


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("hipify: 1\n", "hipify"),
        ("patterns:\n  no_shipping: ['x']\n", "patterns.no_shipping"),
        ("patterns:\n  rocm: ['(']\n", "patterns.rocm"),
        ("submodules:\n  cutlass: {kind: gpu}\n", "submodules.cutlass"),
        ("submodules:\n  cutlass: {kind: cuda, libs: [x]}\n", "submodules.cutlass.libs"),
        ("hipified_strength: 2\n", "hipified_strength"),
        ("libraries:\n  - {path: 'x'}\n", "libraries[0]"),
    ],
)
def test_a_bad_table_names_the_file_and_the_key(tmp_path: Path, text: str, key: str) -> None:
    path = tmp_path / "reach.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError) as info:
        load_reach_table(path)
    message = str(info.value)
    assert str(path) in message and key in message and "\n" not in message


def test_an_unreadable_table(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="cannot read it"):
        load_reach_table(tmp_path / "missing.yaml")
    bad = tmp_path / "bad.yaml"
    bad.write_text("a: [\n", encoding="utf-8")
    with pytest.raises(InputError, match="not YAML"):
        load_reach_table(bad)


# -- tiers -------------------------------------------------------------------------------------


def test_text_never_overturns_reach() -> None:
    """A title that names what moved and talks about size cannot lift a commit whose files
    cannot move the night's variants above one whose files can."""
    fp = fingerprint("rocm7_0", ROCM_ONLY)
    loud = commit(
        "[ROCm] Reduce ROCm 7.0 binary size for gfx950 wheels",
        {"filename": "test/test_rocm.py"},
        sha="l",
    )
    quiet = commit(
        "Refactor the index kernels", {"filename": "aten/src/ATen/native/hip/I.hip"}, sha="q"
    )
    ranked = rank_commits([loud, quiet], fp)
    assert [r.commit.sha[0] for r in ranked] == ["q", "l"]


def test_contents_overturn_reach_and_reasons_come_in_tier_order() -> None:
    fp = fingerprint("cuda12_8", {"cpu": 0.0, "cuda12_8": 40.0, "rocm7_0": 0.0})
    diff = {"files": [{"path": "torch/lib/libcudss.so.0", "status": "added", "old_installed": 0,
                       "new_installed": 40 << 20}]}  # fmt: skip
    facts = facts_from_diff_json(diff)
    bundler = commit(
        "Bundle cuDSS in the CUDA wheels",
        {"filename": "setup.py", "patch": "@@ -1 +1,2 @@\n+    'libcudss.so.0',"},
        sha="b",
    )
    kernel = commit("[CUDA] Add kernels", {"filename": "aten/src/ATen/native/cuda/K.cu"}, sha="k")
    ranked = rank_commits([kernel, bundler], fp, facts)
    assert ranked[0].commit.sha[0] == "b"
    why = ranked[0].why()
    assert why.startswith("content: libcudss.so.0 appeared in the wheel")
    assert why.index("content:") < why.index("reach:")


def test_host_files_beside_the_kernels_are_not_device_code() -> None:
    """Device code grew on the ROCm wheels: a .cuh kernel change explains it; a .cpp next to
    the kernels (host code for CUDA and ROCm) gets no device-code credit, and a submodule
    (header-only or not, unknown) is not called device code only on a host night."""
    fp = fingerprint("rocm7_0", ROCM_ONLY)
    diff = {"files": [{"path": "torch/lib/libtorch_hip.so", "status": "changed",
                       "old_installed": 1 << 30, "new_installed": (1 << 30) + (8 << 20),
                       "sections": [{"name": ".hip_fatbin", "old_size": 900 << 20,
                                     "new_size": (900 << 20) + (8 << 20)}]}]}  # fmt: skip
    facts = facts_from_diff_json(diff)
    guard = "@@ -1,3 +1,6 @@\n #ifdef USE_ROCM\n+  x = 1;\n #endif\n"
    kernel = commit(
        "[ROCm] Unroll the legacy elementwise loop",
        {"filename": "aten/src/ATen/native/cuda/CUDALoops.cuh", "patch": guard},
        sha="k",
    )
    host = commit(
        "[ROCm] Raise the hipBLASLt workspace",
        {"filename": "aten/src/ATen/cuda/CUDABlas.cpp", "patch": guard},
        sha="h",
    )
    ranked = {r.commit.sha[0]: r for r in rank_commits([kernel, host], fp, facts)}
    assert "device code changed, and it changes GPU sources" in ranked["k"].why()
    assert "device code changed" not in ranked["h"].why()
    assert ranked["k"].rank == 1 and leading_group(list(ranked.values())) == [ranked["k"]]
    cuda_host = fingerprint("cuda12_8", {"cpu": 0.0, "cuda12_8": 2.4, "rocm7_0": 0.0})
    host_diff = {"files": [{"path": "torch/lib/libtorch_cuda.so", "status": "changed",
                            "old_installed": 1 << 30, "new_installed": (1 << 30) + (5 << 19),
                            "sections": [{"name": ".text", "old_size": 200 << 20,
                                          "new_size": (200 << 20) + (5 << 19)}]}]}  # fmt: skip
    bump = commit(
        "Update the cudnn_frontend submodule",
        {"filename": "third_party/cudnn_frontend",
         "patch": "@@ -1 +1 @@\n-Subproject commit a\n+Subproject commit b"},
    )  # fmt: skip
    [read] = rank_commits([bump], cuda_host, facts_from_diff_json(host_diff))
    assert "it changes device code only" not in read.why()


def test_preprocessor_guards_scope_the_lines_under_them() -> None:
    """#ifdef is the usual guard; its #endif ends it; a removed guard around kept lines
    does not make them ROCm code (they now build for CUDA too)."""
    added = "@@ -1,3 +1,5 @@\n #ifdef USE_ROCM\n+  x = 1;\n #endif\n"
    assert patch_terms(added).scope == {"rocm:*"}
    after = "@@ -1,3 +1,5 @@\n #ifdef USE_ROCM\n #endif\n+  y = 2;\n"
    assert patch_terms(after).scope == frozenset()
    removed = "@@ -40,10 +40,6 @@\n-#ifdef USE_ROCM\n     kernel<4, 8>(iter);\n-#endif\n"
    assert patch_terms(removed).scope == frozenset()
    dropped = "@@ -1,5 +1,1 @@\n #ifdef USE_ROCM\n-  old();\n #endif\n"
    assert patch_terms(dropped).scope == {"rocm:*"}


def test_warning_options_generate_no_code() -> None:
    """-Werror / -Wunused / /wd4996 in a build file make a build fail or pass; a flag that
    changes code generation, a define or a new source does reach the wheels."""
    werror = (
        "@@ -1,2 +1,4 @@ if(USE_CUDA)\n+  target_compile_options(torch_cuda PRIVATE\n"
        "+    $<$<COMPILE_LANGUAGE:CXX>:-Werror=unused-variable>)\n"
    )
    flags = {"filename": "caffe2/CMakeLists.txt", "patch": werror}
    [reach] = [reach_of(files_from_api([{"status": "modified", **flags}]))]
    assert not reach.ships or not reach.native
    for other in ("-O3", "-DUSE_FOO", "foo.cu", "-Wl,--gc-sections"):
        patch = f"@@ -1 +1 @@\n+  target_compile_options(torch_cuda PRIVATE -Wall {other})\n"
        changed = files_from_api([{"filename": "caffe2/CMakeLists.txt", "status": "modified",
                                   "patch": patch}])  # fmt: skip
        assert reach_of(changed).native, other


# -- honest uncertainty ------------------------------------------------------------------------


def test_no_clear_culprit_when_only_text_separates() -> None:
    fp = fingerprint("cuda12_8", {"cpu": 3.5, "cuda12_8": 3.8, "rocm7_0": 3.6})
    a = commit("[BE] Move shim helpers", {"filename": "torch/csrc/stable/c/shim.h"}, sha="a")
    b = commit(
        "Add stable dtype helpers, binary size neutral",
        {"filename": "torch/headeronly/core/S.h"},
        sha="b",
    )
    group = leading_group(rank_commits([a, b], fp))
    assert {r.commit.sha[0] for r in group} == {"a", "b"}


def test_a_clear_leader_stands_alone() -> None:
    fp = fingerprint("rocm7_0", {"cpu": 0.0, "cuda12_8": 0.0, "rocm7_0": 30.0})
    rocm = commit(
        "[ROCm] Bump the ROCm 7.0 image",
        {"filename": ".ci/docker/manywheel/build_rocm70.sh"},
        sha="r",
    )
    docs = commit("[Docs] Typo", {"filename": "docs/index.md"}, sha="d")
    ranked = rank_commits([docs, rocm], fp)
    assert [r.commit.sha[0] for r in leading_group(ranked)] == ["r"]


def test_nothing_for_the_leader_is_no_clear_culprit() -> None:
    fp = fingerprint("cuda12_8", {"cpu": 3.5, "cuda12_8": 3.8})
    docs = commit("[Docs] Typo", {"filename": "docs/index.md"}, sha="d")
    py = commit("[dynamo] Support groupby", {"filename": "torch/_dynamo/x.py"}, sha="p")
    assert len(leading_group(rank_commits([docs, py], fp))) == 2


def test_a_night_without_a_jump_ranks_nothing_and_names_what_moved() -> None:
    fp = fingerprint("cuda12_8", {"cpu": 0.03, "cuda12_8": -0.08, "rocm7_0": 35.2},
                     jumped=False, threshold_mb=1.0)  # fmt: skip
    assert fp.direction == 0 and fp.elsewhere == (("rocm7_0", 35.2),)
    assert rank_commits([commit("x", {"filename": "c10/a.cpp"})], fp) == []
    assert fp.reading() == (
        "cuda12_8 has no jump (-0.08 MB) that night; the variants that moved: rocm7_0 (+35.20 MB)."
    )


# -- free-threaded Pythons --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("tag", "canonical"),
    [("3.13t", "py3_13t"), ("3.14t", "py3_14t"), ("cp313t", "py3_13t"), ("py3_13t", "py3_13t"),
     ("3.13", "py3_13")],
)  # fmt: skip
def test_every_python_tag_is_accepted(tag: str, canonical: str) -> None:
    assert canonical_python(tag) == canonical


def test_free_threaded_wheels_are_variants_of_their_own() -> None:
    assert variant_key("py3_13t-cuda12_8").python == "3.13t"
    assert variant_key("py3_13-cuda12_8").python == "3.13"
    fp = fingerprint(
        "py3_13t-cuda12_8",
        {"py3_13-cuda12_8": 0.0, "py3_13t-cuda12_8": 13.9, "py3_13t-cpu": 13.6, "py3_12-cpu": 0.0},
    )
    assert "Python 3.13t only" in fp.scope()
    scoped = patch_terms('@@ -1,3 +1,5 @@\n case "$DESIRED_PYTHON" in\n+  3.13t|3.14t)\n+    X=1\n')
    assert {"python:3.13t", "python:3.14t"} <= scoped.scope
