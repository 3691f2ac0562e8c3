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

from wheel_size.regressions.ranking.reach_table import ReachTable, default_table
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


def is_docs_or_tests(path: str, table: ReachTable | None = None) -> bool:
    t = table or default_table()
    return t.match("docs_tests", path) and not t.match("image_scripts", path)


def is_device_only(files: Iterable[ChangedFile], table: ReachTable | None = None) -> bool:
    """True when every shipped file is GPU-only code (cannot change a CPU wheel)."""
    t = table or default_table()
    shipped = [f for f in files if not is_docs_or_tests(f.filename, t)]
    return bool(shipped) and all(
        t.match("device_file", f.filename) or t.match("device_dir", f.filename) for f in shipped
    )


def _file_categories(changed: ChangedFile, t: ReachTable) -> set[str]:
    path = changed.filename
    found: set[str] = set()
    if is_docs_or_tests(path, t):
        return found
    if changed.submodule or t.match("submodule_list", path):
        found.add("submodule-bump")
        if t.match("header_only_submodule", path):
            found.add("header-only-library")
        if t.match("kernel_library", path):
            found.add("cutlass-fbgemm")
        return found
    compiled = t.match("compiled_source", path)
    native = compiled or t.match("header", path)
    if t.match("image_scripts", path):
        found.add("build-image")
    if t.match("cmake", path):
        if changed.patch_keywords & {"cutlass", "fbgemm"}:
            found.add("cutlass-fbgemm")
        if (
            not changed.patch_keywords
            or any(k.startswith("-o") for k in changed.patch_keywords)
            or changed.patch_keywords & {"compile_options", "arch_list", "gencode"}
        ):
            found.add("compiler-flags")
    if t.match("kernel_library", path) and native:
        found.add("cutlass-fbgemm")
    if t.match("device_file", path):
        found.add("cuda-kernels")
    elif native and changed.patch_keywords & {"instantiat", "template"}:
        found.add("cuda-kernels" if t.match("device_dir", path) else "cpp-code")
    if changed.status == "added" and compiled:
        found.add("new-compilation-units")
    if t.match("vendored", path) and t.match("header", path):
        found.add("header-only-library")
    if t.match("operator_table", path):
        found.add("new-operators")
    if native:
        found.add("cpp-code")
    if not found:
        # Python, or anything else that is shipped or configures the build (yaml, bzl, txt).
        found.add("python-only" if t.match("python_only", path) else "cpp-code")
    return found


def categorize(commit: Commit, table: ReachTable | None = None) -> tuple[str, ...]:
    """The categories of one commit, most size-relevant first (paths read through the reach
    table, ``table`` or the packaged one)."""
    t = table or default_table()
    found: set[str] = set()
    if commit.files is not None:
        if commit.files and all(is_docs_or_tests(f.filename, t) for f in commit.files):
            return ("docs-tests-only",)
        for changed in commit.files:
            found |= _file_categories(changed, t)
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
