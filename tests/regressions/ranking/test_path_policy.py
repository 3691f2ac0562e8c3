"""One path-policy vocabulary (issue 33 item 3): which changed paths are docs, GPU sources,
build images, compilation units … is data in ``reach_table.yaml``, read by one module
(``regressions/ranking/reach_table.py``), as auditwheel keeps its policy in a JSON file.

Before, the seed's categories kept their own suffix sets and path regexes in
``classify.py``, ``evidence.py`` a third device-suffix list, ``rank.py`` two more source
regexes and ``content_facts.py`` the wheel's library names; a project's ``--reach-table``
could not change them, and two lists of "GPU source" could disagree.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
import yaml

from conftest import SRC
from wheel_size.regressions.ranking.classify import Classified, categorize, is_device_only
from wheel_size.regressions.ranking.content_facts import facts_from_diff_json
from wheel_size.regressions.ranking.evidence import is_host_only
from wheel_size.regressions.ranking.reach_table import (
    PATTERN_KEYS,
    default_table,
    load_reach_table,
)
from wheel_size.regressions.window.commits import ChangedFile, Commit

RANKING = SRC / "wheel_size" / "regressions" / "ranking"
#: The one module that may spell a path policy (it reads the YAML).
READER = "reach_table.py"

# What a path or suffix policy looks like when it is written in code.
_SUFFIX = re.compile(r"\.[A-Za-z][A-Za-z0-9_]{0,9}")  # ".cu", ".pyi", ".json"
_FILE = re.compile(r"\.?[\w-]+\.[A-Za-z]{1,6}")  # "native_functions.yaml", ".gitmodules"
_PATH = re.compile(r"\S*(\w/|/\w)\S*")  # "third_party/", ".github/", "torch/testing/"
_PATH_REGEX = re.compile(r"\(\^\|/\)|\(\?:\^\|/\)|\\\.\(?[A-Za-z|?]+\)?\$|\w/|/\w")
_PATH_NAMES = {"path", "filename", "name"}


def _docstrings(tree: ast.AST) -> set[int]:
    found = set()
    for node in ast.walk(tree):
        kinds = ast.Module | ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef
        if isinstance(node, kinds) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found.add(id(first.value))
    return found


def _names_a_path(node: ast.AST) -> bool:
    return any(
        (isinstance(n, ast.Name) and n.id in _PATH_NAMES)
        or (isinstance(n, ast.Attribute) and n.attr in _PATH_NAMES)
        for n in ast.walk(node)
    )


def policy_literals(source: str) -> list[tuple[int, str]]:
    """(line, text) of every string in ``source`` that spells a path or suffix policy: a
    suffix, a file name, a path fragment, a path regex, or a word tested against a path
    (``"cuda" in f.filename``). Docstrings and the words of f-strings are prose."""
    tree = ast.parse(source)
    skip = _docstrings(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            skip.update(id(v) for v in node.values)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare) and isinstance(node.left, ast.Constant):
            tests_path = any(isinstance(op, ast.In | ast.NotIn) for op in node.ops)
            if tests_path and any(_names_a_path(c) for c in node.comparators):
                found.append((node.lineno, str(node.left.value)))
                skip.add(id(node.left))
        if not isinstance(node, ast.Constant) or not isinstance(node.value, str):
            continue
        text = node.value
        if id(node) in skip or not text or any(c.isspace() for c in text):
            continue
        if (
            _SUFFIX.fullmatch(text)
            or _FILE.fullmatch(text)
            or _PATH.fullmatch(text)
            or _PATH_REGEX.search(text)
        ):
            found.append((node.lineno, text))
    return sorted(found)


def test_no_path_policy_in_ranking_code_outside_the_reach_table() -> None:
    spelled = {
        path.name: policy_literals(path.read_text(encoding="utf-8"))
        for path in sorted(RANKING.glob("*.py"))
        if path.name != READER
    }
    spelled = {name: found for name, found in spelled.items() if found}
    assert not spelled, f"path policy written in code; move it to reach_table.yaml: {spelled}"


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ('_DEVICE_SUFFIX = {".cu", ".cuh", ".hip"}', [".cu", ".cuh", ".hip"]),
        ('ok = f.filename.lower().endswith((".cu", ".hip"))', [".cu", ".hip"]),
        ('ok = "cuda" in f.filename.lower()', ["cuda"]),
        ('ok = path.startswith("third_party/")', ["third_party/"]),
        ('ok = name == "native_functions.yaml"', ["native_functions.yaml"]),
        ('X = re.compile(r"(^|/)(cuda|hip)(/|$)", re.I)', ["(^|/)(cuda|hip)(/|$)"]),
        ('X = re.compile(r"\\.(cu|cuh)$")', ["\\.(cu|cuh)$"]),
        # Not path policy: words, joins, sentences, docstrings.
        ('"""Reads .cu files under third_party/."""\nlabel = "/".join(tags)', []),
        ('why = "ships in no wheel"\nok = k.startswith("-o") or a.startswith("sm_")', []),
    ],
)
def test_the_scan_sees_a_policy_written_in_code(source: str, expected: list[str]) -> None:
    assert [text for _, text in policy_literals(source)] == expected


def test_the_scan_sees_the_lists_that_were_in_code_before() -> None:
    # The three sources of before (issue 33), as they were written.
    before = """
_NATIVE_SOURCE = {".c", ".cc", ".cpp", ".cxx", ".cu", ".hip", ".mm", ".m"}
_DEVICE_DIR = re.compile(r"(^|/)(cuda|hip|rocm|miopen|cudnn|cutlass|nvfuser|xpu|mps)(/|$)", re.I)
def is_host_only(files):
    return not any(
        f.filename.lower().endswith((".cu", ".cuh", ".hip")) or "cuda" in f.filename.lower()
        for f in files
    )
"""
    assert len(policy_literals(before)) == 8 + 1 + 3 + 1


def test_every_policy_key_is_data_in_the_packaged_table() -> None:
    text = (RANKING / "reach_table.yaml").read_text(encoding="utf-8")
    assert set(yaml.safe_load(text)["patterns"]) == set(PATTERN_KEYS)
    used = set()
    for path in RANKING.glob("*.py"):
        used |= set(re.findall(r"\.match\(\s*\"(\w+)\"", path.read_text(encoding="utf-8")))
    assert used <= set(PATTERN_KEYS), sorted(used - set(PATTERN_KEYS))
    assert used >= {"device_file", "device_source", "family_source", "docs_tests"}


def _commit(*paths: str) -> Commit:
    return Commit(sha="a" * 40, message="x", files=tuple(ChangedFile(p, "modified") for p in paths))


def test_one_reading_of_gpu_sources_for_category_status_and_reach(tmp_path: Path) -> None:
    # Every reader of "a GPU source" asks the table, so a project's table changes them all.
    kernel = _commit("src/kernels/gemm.sycl")
    assert not is_device_only(kernel.files or ())
    assert "cuda-kernels" not in categorize(kernel)
    own = tmp_path / "reach.yaml"
    own.write_text("patterns:\n  device_file: ['\\.(cu|cuh|hip|sycl)$']\n", encoding="utf-8")
    table = load_reach_table(own)
    assert is_device_only(kernel.files or (), table)
    assert "cuda-kernels" in categorize(kernel, table)
    item = Classified(kernel, ("cpp-code",), 30)
    assert is_host_only(item) and not is_host_only(item, table)


def test_the_packaged_table_reads_paths_as_the_code_did() -> None:
    t = default_table()
    assert t.match("device_file", "aten/src/ATen/native/cuda/Reduce.CUH")
    assert not t.match("compiled_source", "include/.cpp")  # an extension needs a name
    assert t.match("compiled_source", "torch/csrc/stable/shim.cpp")
    assert t.match("python_only", "torch/_inductor/config.py")
    assert t.own_library("torch/lib/libtorch_cuda.so") == "torch_cuda"
    assert t.own_library("torch/lib/libTorch_cuda.so") is None  # case-sensitive, as before
    assert not t.match("own_library_prefix", "torch/lib/LIBTORCH.so")
    diff = {
        "files": [
            {"path": "torch/lib/libc10.so", "status": "changed", "old_installed": 1,
             "new_installed": 3},
        ]
    }  # fmt: skip
    facts = facts_from_diff_json(diff)
    assert facts is not None and facts.torch_libraries == {"c10": 2}
