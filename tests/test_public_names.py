"""Names that say what they do (issue 33 item 3): no two modules of ``wheel_size`` define a
public top-level function of the same name, apart from the listed exceptions.

A reader who meets ``render_markdown`` or ``to_json`` in a caller should not have to look at
the import to know which of several it is. The allowlist only shrinks: a new collision
fails here, and a collision that has gone must leave the list (so it cannot come back).
"""

from __future__ import annotations

import ast
from collections import defaultdict

from conftest import SRC

PACKAGE = SRC / "wheel_size"

# One interface implemented by every module of a kind, by design: each ``cli/<command>.py``
# exposes ``configure_parser`` and ``run`` to ``cli/main.py``; ``main`` is an entry point.
PROTOCOL = {"configure_parser", "run", "main"}

# Collisions still to rename: none (issue 33 item 3). A new one fails the test below; it is
# never added here.
PENDING: dict[str, set[str]] = {}


def collisions() -> dict[str, set[str]]:
    """Public top-level function name → the modules (relative paths) defining it, for
    every name defined in more than one module."""
    defined: dict[str, set[str]] = defaultdict(set)
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            functions = ast.FunctionDef | ast.AsyncFunctionDef
            if isinstance(node, functions) and not node.name.startswith("_"):
                defined[node.name].add(path.relative_to(PACKAGE).as_posix())
    return {name: where for name, where in defined.items() if len(where) > 1}


def test_no_new_public_name_collision() -> None:
    found = {name: where for name, where in collisions().items() if name not in PROTOCOL}
    new = {name: sorted(where) for name, where in found.items() if where - PENDING.get(name, set())}
    assert not new, f"public functions of one name in several modules (rename one): {new}"


def test_pending_collisions_only_shrink() -> None:
    found = collisions()
    gone = sorted(name for name in PENDING if name not in found)
    assert not gone, f"no longer colliding, remove from PENDING in {__file__}: {gone}"
