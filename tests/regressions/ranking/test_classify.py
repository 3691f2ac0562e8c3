from __future__ import annotations

from wheel_size.regressions.ranking.classify import (
    Classified,
    categorize,
    is_device_only,
    rank,
    score,
)
from wheel_size.regressions.window.commits import (
    ChangedFile,
    Commit,
    files_from_api,
    pull_request_number,
)


def commit(title: str, *files: ChangedFile | str) -> Commit:
    changed = tuple(f if isinstance(f, ChangedFile) else ChangedFile(f, "modified") for f in files)
    return Commit(sha="a" * 40, message=title, files=changed)


def test_seed_categories_from_files() -> None:
    cmake = ChangedFile("cmake/public/utils.cmake", "modified", patch_keywords=frozenset({"-o2"}))
    assert categorize(commit("x", cmake))[0] == "compiler-flags"
    assert "cuda-kernels" in categorize(commit("x", "aten/src/ATen/native/cuda/Reduce.cuh"))
    regex = ChangedFile(
        "aten/src/ATen/CMakeLists.txt", "modified", patch_keywords=frozenset({"fbgemm"})
    )
    assert categorize(commit("x", regex)) == ("cutlass-fbgemm",)
    gitlink = ChangedFile("third_party/cudnn_frontend", "modified", submodule=True)
    assert set(categorize(commit("x", gitlink))) == {"submodule-bump", "header-only-library"}
    fbgemm = ChangedFile("third_party/fbgemm", "modified", submodule=True)
    assert set(categorize(commit("x", fbgemm))) == {"submodule-bump", "cutlass-fbgemm"}
    added = ChangedFile("torch/csrc/stable/shim.cpp", "added")
    assert categorize(commit("x", added)) == ("new-compilation-units",)
    ops = commit("x", "aten/src/ATen/native/native_functions.yaml")
    assert "new-operators" in categorize(ops)
    assert categorize(commit("x", ".ci/docker/common/install_cuda.sh")) == ("build-image",)
    assert categorize(commit("x", "docs/source/index.rst", "test/test_nn.py")) == (
        "docs-tests-only",
    )
    assert categorize(commit("x", "torch/nn/functional.py")) == ("python-only",)
    assert categorize(commit("x", "c10/core/TensorImpl.cpp")) == ("cpp-code",)


def test_unknown_files_use_the_message() -> None:
    unfetched = Commit(sha="b" * 40, message="Add CUTLASS grouped gemm kernels (#1)")
    cats = categorize(unfetched)
    assert "unknown" in cats and "cutlass-fbgemm" in cats


def test_docs_only_ranks_last_and_flags_first() -> None:
    docs = commit("Docs", "docs/a.md")
    flags = commit("Use -O3", ChangedFile("CMakeLists.txt", "modified"))
    py = commit("Py", "torch/a.py")
    items = [Classified(c, categorize(c), score(categorize(c))) for c in (docs, py, flags)]
    ranked = rank(items)
    assert [r.commit.message for r in ranked] == ["Use -O3", "Py", "Docs"]
    assert [r.rank for r in ranked] == [1, 2, 3]


def test_device_only() -> None:
    assert is_device_only(commit("x", "aten/src/ATen/native/cuda/a.cu", "test/t.py").files or ())
    assert not is_device_only(commit("x", "aten/src/ATen/native/a.cpp").files or ())
    assert not is_device_only(commit("x", "docs/a.md").files or ())


def test_pull_request_numbers() -> None:
    assert pull_request_number("Add kernel (#165055)") == 165055
    body = "Title\n\nPull Request resolved: https://github.com/pytorch/pytorch/pull/42\n"
    assert pull_request_number(body) == 42
    assert pull_request_number("No PR here #12 in text") is None


def test_submodule_from_patch() -> None:
    files = files_from_api(
        [
            {
                "filename": "third_party/fbgemm",
                "status": "modified",
                "additions": 1,
                "deletions": 1,
                "patch": "@@ -1 +1 @@\n-Subproject commit aaa\n+Subproject commit bbb",
            },
            {"filename": "CMakeLists.txt", "status": "modified", "patch": "+ set(X -O3)"},
        ]
    )
    assert files[0].submodule and not files[1].submodule
    assert "-o3" in files[1].patch_keywords
