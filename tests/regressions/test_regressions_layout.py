"""The house of ``regressions/`` (issue 18, point 8): subpackages by what the code is about,
each importing only those below it, and no flat module or shim left behind."""

from __future__ import annotations

import ast

from conftest import SRC

PACKAGE = SRC / "wheel_size" / "regressions"
PREFIX = "wheel_size.regressions."
# Lowest first: a part may import itself and the parts before it.
ORDER = ["document", "window", "ranking", "events", "investigation", "builds", "issues"]


def _part(module: str) -> str:
    """``wheel_size.regressions.ranking.rank`` → ``ranking``."""
    return module.split(".")[2]


def _imports() -> list[tuple[str, str]]:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.name == "__init__.py" and path.parent == PACKAGE:
            continue
        rel = path.relative_to(SRC).with_suffix("").parts
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(PREFIX):
                found.append((".".join(rel), str(node.module)))
    return found


def test_no_flat_module_but_those_that_tie_the_parts_together() -> None:
    flat = {p.stem for p in PACKAGE.glob("*.py")} - {"__init__"}
    assert flat == {"document", "events", "investigation"}
    assert {p.name for p in PACKAGE.iterdir() if p.is_dir() and p.name != "__pycache__"} == {
        "window",
        "ranking",
        "builds",
        "issues",
    }


def test_each_part_imports_only_the_parts_below_it() -> None:
    upward = [
        f"{module} imports {name}"
        for module, name in _imports()
        if ORDER.index(_part(name)) > ORDER.index(_part(module))
    ]
    assert upward == []
