"""No import cycle between modules of ``wheel_size`` (issue 33 item 5), lazy imports included.

``test_import_rules.py`` forbids cycles between *packages*; a cycle between two modules of
one package slipped past it (``regressions/issues/body.py ↔ notes.py ↔ parts.py`` through
``MARKER_PREFIX``), hidden by imports placed inside functions. This test walks every
``import`` and ``from … import`` anywhere in a module — at the top, inside functions and
under ``if TYPE_CHECKING:`` alike (a lazy import is still a dependency, and a type-only one
still ties the two modules' meaning together) — and fails on any strongly connected
component of more than one module. The fix for a cycle is to move the shared small thing
down into a module of its own (as :mod:`wheel_size.markers` did for the marker prefixes).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

from conftest import SRC

PACKAGE = SRC / "wheel_size"


def _modules() -> dict[str, Path]:
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(SRC).with_suffix("").parts
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def _imported(module: str, path: Path, known: dict[str, Path]) -> Iterator[str]:
    """The ``wheel_size`` modules ``module`` imports anywhere in its text."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names if alias.name in known)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                source = ".".join([*base, *([node.module] if node.module else [])])
            else:
                source = node.module or ""
            if source in known:
                yield source
            # ``from wheel_size.sticky import marker`` names a function, but
            # ``from wheel_size.regressions.issues import body`` names a module
            yield from (
                f"{source}.{alias.name}"
                for alias in node.names
                if f"{source}.{alias.name}" in known
            )


def graph() -> dict[str, set[str]]:
    known = _modules()
    return {
        module: {name for name in _imported(module, path, known) if name != module}
        for module, path in known.items()
    }


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    top = stack.pop()
                    on_stack.discard(top)
                    component.append(top)
                    if top == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return sorted(found)


def test_cycles_finds_a_function_local_cycle(tmp_path: Path) -> None:
    """The detector itself: a cycle closed only by an import inside a function is seen."""
    edges = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(edges) == [["a", "b", "c"]]
    source = "def f():\n    from wheel_size.sticky import marker\n    return marker\n"
    path = tmp_path / "lazy.py"
    path.write_text(source, encoding="utf-8")
    known = {"wheel_size.sticky": path, "wheel_size.lazy": path}
    assert list(_imported("wheel_size.lazy", path, known)) == ["wheel_size.sticky"]


def test_no_import_cycle_between_modules() -> None:
    found = cycles(graph())
    shown = "\n".join(" ↔ ".join(component) for component in found)
    assert not found, f"{len(found)} import cycle(s) between modules:\n{shown}"
