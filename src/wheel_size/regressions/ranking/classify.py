"""The seed procedure's categories of size-relevant change, as labels for candidates.

The categories ("Investigating size jumps", step 3) are read from the files a commit changed
and, when the files are unknown, from its message. They label candidates and give the
ranking (``regressions.ranking.rank``) a small prior; the ranking itself rests on the night's
fingerprint, what each commit can reach, its words and the wheel contents.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath

from wheel_size.regressions.window.commits import ChangedFile, Commit

__all__ = [
    "CATEGORIES",
    "Category",
    "Classified",
    "categorize",
    "is_device_only",
    "rank",
]


@dataclass(frozen=True)
class Category:
    key: str
    title: str
    weight: int  # higher = more likely to grow a wheel
    why: str


CATEGORIES: dict[str, Category] = {
    c.key: c
    for c in (
        Category(
            "compiler-flags",
            "Compiler flags / CMake options",
            90,
            "optimisation levels and flags change the code generated for every library",
        ),
        Category(
            "cutlass-fbgemm",
            "CUTLASS / FBGEMM kernel families",
            85,
            "heavily templated kernel families; one new family can add megabytes",
        ),
        Category(
            "cuda-kernels",
            "CUDA kernels / template instantiations",
            80,
            "each instantiation is compiled for every target GPU architecture",
        ),
        Category(
            "submodule-bump",
            "Submodule bump",
            70,
            "an updated third-party library brings new compiled code",
        ),
        Category(
            "header-only-library",
            "Header-only template library update",
            65,
            "header code compiles into every translation unit that includes it",
        ),
        Category(
            "new-compilation-units",
            "New compilation units",
            60,
            "new .cpp/.cu files add object code",
        ),
        Category(
            "new-operators",
            "New operators",
            55,
            "native_functions.yaml entries generate kernels, bindings and registrations",
        ),
        Category(
            "build-image",
            "Build image / build scripts",
            50,
            "a new toolchain, CUDA or library version in the build image changes every binary",
        ),
        Category("cpp-code", "Native code change", 30, "changed C++/CUDA sources"),
        Category("unknown", "Files not checked", 20, "changed files not fetched"),
        Category("python-only", "Python only", 10, "Python files add little to a wheel"),
        Category(
            "docs-tests-only",
            "Docs / tests / CI only",
            0,
            "nothing that is shipped in the wheel",
        ),
    )
}

_NATIVE_SOURCE = {".c", ".cc", ".cpp", ".cxx", ".cu", ".hip", ".mm", ".m"}
_NATIVE_HEADER = {".h", ".hh", ".hpp", ".hxx", ".cuh", ".inl", ".tcc"}
_DEVICE_SUFFIX = {".cu", ".cuh", ".hip"}
_DEVICE_DIR = re.compile(r"(^|/)(cuda|hip|rocm|miopen|cudnn|cutlass|nvfuser|xpu|mps)(/|$)", re.I)
_DOCS_TESTS = re.compile(
    r"(^|/)(docs?|tests?|testing|benchmarks?|examples?)/|^\.github/|^\.lintrunner|"
    r"\.(md|rst)$|(^|/)(CODEOWNERS|LICENSE|NOTICE|\.gitignore|\.flake8|mypy.*\.ini)$",
    re.I,
)
_BUILD_IMAGE = re.compile(
    r"^\.ci/(docker|manywheel|libtorch|aarch64_linux|wheel)/|(^|/)docker/|"
    r"(^|/)Dockerfile[^/]*$|\.Dockerfile$|^\.github/(workflows|scripts)/[^/]*(binary|manywheel)",
    re.I,
)
_CMAKE = re.compile(r"(^|/)CMakeLists\.txt$|\.cmake$|(^|/)cmake/|^setup\.py$|(^|/)build\.sh$", re.I)
_KERNEL_LIBS = re.compile(r"cutlass|fbgemm", re.I)
# Submodules that are (mostly) header-only template libraries.
_HEADER_ONLY = re.compile(
    r"(^|/)(cudnn[_-]frontend|cutlass|cub|cccl|thrust|eigen|fmt|json|pybind11|flatbuffers|"
    r"composable_kernel|cpp-httplib|concurrentqueue|kleidiai|tensorpipe|cpuinfo)$",
    re.I,
)

_MESSAGE_HINTS: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "compiler-flags",
        re.compile(
            r"(?<![\w-])-O[0-3s]\b|compile[_ ]options|compiler flags?|optimi[sz]ation (level|flag)"
            r"|\bcmake\b|\bLTO\b|-flto|arch[_ ]list|gencode",
            re.I,
        ),
    ),
    ("cutlass-fbgemm", re.compile(r"\b(cutlass|fbgemm)", re.I)),
    (
        "cuda-kernels",
        re.compile(r"instantiat|\bkernels?\b|\.cuh?\b|\bcuda\b|\bsm_?\d{2,3}|template", re.I),
    ),
    (
        "submodule-bump",
        re.compile(r"\bsubmodule|\b(bump|update|upgrade)\b.*\b(to|version)\b", re.I),
    ),
    ("header-only-library", re.compile(r"cudnn[_ -]?frontend|\bcub\b|\beigen\b", re.I)),
    (
        "new-operators",
        re.compile(r"native_functions|\bnew (op|operator)s?\b|\badd\b.*\bop\b", re.I),
    ),
    ("build-image", re.compile(r"\bdocker|\bimage\b|manylinux|\btoolchain|\bgcc\s?\d", re.I)),
)


@dataclass(frozen=True)
class Classified:
    """A candidate commit with its categories, score and rank (1 = most likely)."""

    commit: Commit
    categories: tuple[str, ...]
    score: float
    rank: int = 0


def is_docs_or_tests(path: str) -> bool:
    return bool(_DOCS_TESTS.search(path)) and not _BUILD_IMAGE.search(path)


def is_device_only(files: Iterable[ChangedFile]) -> bool:
    """True when every shipped file is GPU-only code (cannot change a CPU wheel)."""
    shipped = [f for f in files if not is_docs_or_tests(f.filename)]
    return bool(shipped) and all(
        PurePosixPath(f.filename).suffix.lower() in _DEVICE_SUFFIX
        or bool(_DEVICE_DIR.search(f.filename))
        for f in shipped
    )


def _file_categories(changed: ChangedFile) -> set[str]:
    path = changed.filename
    suffix = PurePosixPath(path).suffix.lower()
    found: set[str] = set()
    if is_docs_or_tests(path):
        return found
    if changed.submodule or path == ".gitmodules":
        found.add("submodule-bump")
        if _HEADER_ONLY.search(path):
            found.add("header-only-library")
        if _KERNEL_LIBS.search(path):
            found.add("cutlass-fbgemm")
        return found
    if _BUILD_IMAGE.search(path):
        found.add("build-image")
    if _CMAKE.search(path):
        if changed.patch_keywords & {"cutlass", "fbgemm"}:
            found.add("cutlass-fbgemm")
        if (
            not changed.patch_keywords
            or any(k.startswith("-o") for k in changed.patch_keywords)
            or changed.patch_keywords & {"compile_options", "arch_list", "gencode"}
        ):
            found.add("compiler-flags")
    if _KERNEL_LIBS.search(path) and (suffix in _NATIVE_SOURCE | _NATIVE_HEADER):
        found.add("cutlass-fbgemm")
    if suffix in _DEVICE_SUFFIX:
        found.add("cuda-kernels")
    elif suffix in _NATIVE_SOURCE | _NATIVE_HEADER and changed.patch_keywords & {
        "instantiat",
        "template",
    }:
        found.add("cuda-kernels" if _DEVICE_DIR.search(path) else "cpp-code")
    if changed.status == "added" and suffix in _NATIVE_SOURCE:
        found.add("new-compilation-units")
    if path.startswith("third_party/") and suffix in _NATIVE_HEADER:
        found.add("header-only-library")
    if PurePosixPath(path).name == "native_functions.yaml":
        found.add("new-operators")
    if suffix in _NATIVE_SOURCE | _NATIVE_HEADER:
        found.add("cpp-code")
    if not found and suffix in {".py", ".pyi"}:
        found.add("python-only")
    if not found:
        # Anything else that is shipped or configures the build (yaml, bzl, txt files).
        found.add("cpp-code" if suffix not in {".py", ".pyi", ".json"} else "python-only")
    return found


def categorize(commit: Commit) -> tuple[str, ...]:
    """The categories of one commit, most size-relevant first."""
    found: set[str] = set()
    if commit.files is not None:
        if commit.files and all(is_docs_or_tests(f.filename) for f in commit.files):
            return ("docs-tests-only",)
        for changed in commit.files:
            found |= _file_categories(changed)
        # Python next to native code is noise; python-only means only Python.
        if found - {"python-only"}:
            found.discard("python-only")
        if found & (set(CATEGORIES) - {"cpp-code", "python-only"}):
            found.discard("cpp-code")
    else:
        found.add("unknown")
        for key, pattern in _MESSAGE_HINTS:
            if pattern.search(commit.title):
                found.add(key)
    return tuple(sorted(found, key=lambda k: (-CATEGORIES[k].weight, k)))


def score(categories: Sequence[str], bonus: int = 0) -> int:
    """Highest category weight, plus a little per extra category, plus evidence bonus."""
    if not categories:
        return bonus
    weights = sorted((CATEGORIES[c].weight for c in categories), reverse=True)
    return weights[0] + 2 * sum(1 for w in weights[1:] if w >= 30) + bonus


def rank(items: Sequence[Classified]) -> list[Classified]:
    """Order by score (ties keep chronological order) and number the ranks from 1."""
    ordered = sorted(enumerate(items), key=lambda pair: (-pair[1].score, pair[0]))
    return [
        Classified(item.commit, item.categories, item.score, rank=position + 1)
        for position, (_, item) in enumerate(ordered)
    ]
