"""The native floor sits below diff and audit, which are siblings.

Every import is counted, including those inside functions (a lazy import is still a
dependency).  ``native`` may stand only on the parsers and the error types; ``diff`` and
``audit`` may both use ``native`` but not each other.
"""

from __future__ import annotations

import ast
from pathlib import Path

from conftest import SRC

PACKAGE = SRC / "wheel_size"
NATIVE_MAY_USE = {"native", "rocm", "cuda", "errors"}


# audit -> diff imports left in modules another change owns; each names where its target
# moved, so the fix is one import line (then delete the entry).
def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), str(path))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
    return {name for name in found if name.split(".")[0] == "wheel_size"}


def _package_imports(package: str) -> dict[str, set[str]]:
    return {
        str(path.relative_to(PACKAGE)): _imports(path)
        for path in sorted((PACKAGE / package).rglob("*.py"))
    }


def _subpackage(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def test_native_stands_only_on_the_parsers() -> None:
    modules = _package_imports("native")
    assert modules, "the native package is missing"
    for path, imports in modules.items():
        above = {m for m in imports if _subpackage(m) not in NATIVE_MAY_USE}
        assert not above, f"{path} imports {sorted(above)} from above the native floor"


def test_diff_does_not_import_audit() -> None:
    for path, imports in _package_imports("diff").items():
        audit = {m for m in imports if _subpackage(m) == "audit"}
        assert not audit, f"{path} imports {sorted(audit)}"


def test_audit_does_not_import_diff() -> None:
    for path, imports in _package_imports("audit").items():
        diff = {m for m in imports if _subpackage(m) == "diff"}
        assert not diff, f"{path} imports {sorted(diff)}"


def test_both_read_native_facts_from_the_floor() -> None:
    """The ELF/GPU facts both need come from one place, not two copies."""
    diff = set().union(*_package_imports("diff").values())
    audit = set().union(*_package_imports("audit").values())
    assert "wheel_size.native" in diff and "wheel_size.native" in audit
    for package in ("diff", "audit"):
        for path, imports in _package_imports(package).items():
            direct = {"wheel_size.cuda.library", "wheel_size.rocm.elf_tables"} & imports
            assert not direct, f"{path} reads {sorted(direct)} itself instead of wheel_size.native"
