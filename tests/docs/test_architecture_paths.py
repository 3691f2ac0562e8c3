"""``docs/architecture.md`` names only files and packages that exist (issue 22, point 5):
every backticked path resolves in the package (a bare file name in one of its packages), the
repository root, ``templates/`` or ``tests/``, so a module renamed or removed leaves no claim
about it behind."""

from __future__ import annotations

import re

from conftest import REPO_ROOT

DOC = REPO_ROOT / "docs" / "architecture.md"
ROOTS = [REPO_ROOT / "src" / "wheel_size", REPO_ROOT, REPO_ROOT / "templates", REPO_ROOT / "tests"]
# `split/document.py`, `rocm/`, `templates/split_plan.txt.j2`, `split/dryrun.DryRunPlan`
_PATH = re.compile(r"`([\w.-]+(?:/[\w.*-]*)+)`|`([\w-]+\.(?:py|md|yml|yaml|json|j2))`")


def _names() -> list[str]:
    text = DOC.read_text(encoding="utf-8")
    return [a or b for a, b in _PATH.findall(text)]


def _exists(name: str) -> bool:
    if "*" in name:
        return any(any(root.glob(name)) for root in ROOTS)
    module = re.sub(r"\.(\w+)$", "", name) + ".py"  # `split/dryrun.DryRunPlan`, `x/y.func`
    candidates = {name.rstrip("/"), module}
    if any((root / c).exists() for root in ROOTS for c in candidates):
        return True
    # a bare file name in a paragraph about its package (`regressions/`: `window.py` ...)
    return "/" not in name and any(ROOTS[0].rglob(name))


def test_every_named_path_exists() -> None:
    names = _names()
    assert len(names) > 30  # the pattern still finds the paths
    assert [n for n in names if not _exists(n)] == []
