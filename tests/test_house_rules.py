"""The house rules of ``docs/architecture.md`` that a scan of the source can check (issue 22,
point 5): one MB, sizes formatted by ``units.py``, library code leaves ``os.environ`` alone,
no docstring names a path on a developer's machine."""

from __future__ import annotations

import ast
import re

from conftest import REPO_ROOT

SRC = REPO_ROOT / "src" / "wheel_size"

# Files another change is editing right now (issue 22): their sizes move to units.py there.
PENDING: set[str] = set()

_OWN_MB = re.compile(r"^\s*MB\s*=\s*1_?048_?576\b", re.M)
# A number formatted as MB by an f-string of its own: ``{x / MB:.1f} MB``, ``{d:+,.2f} MB``.
_FSTRING_MB = re.compile(r"\{[^{}]*:[+,]*\.\d+f\}\s*MB\b")
_ENV_WRITE = re.compile(
    r"os\.environ\[[^\]]+\]\s*=(?!=)"
    r"|os\.environ\.(update|setdefault|pop)\(|os\.putenv\(|del os\.environ"
)
_MACHINE_PATH = re.compile(r"(?<![\w.])/(?:work|Users)/|/home/(?!runner\b)")


def _sources() -> list[tuple[str, str]]:
    return [
        (path.relative_to(SRC).as_posix(), path.read_text(encoding="utf-8"))
        for path in sorted(SRC.rglob("*.py"))
    ]


def test_one_mb_defined_in_units_only() -> None:
    own = [name for name, text in _sources() if _OWN_MB.search(text) and name != "units.py"]
    assert sorted(set(own) - PENDING) == []


def test_sizes_are_formatted_by_units() -> None:
    found = [
        f"{name}: {m.group(0)}"
        for name, text in _sources()
        if name != "units.py" and name not in PENDING
        for m in _FSTRING_MB.finditer(text)
    ]
    assert found == []


def test_library_code_leaves_the_environment_alone() -> None:
    """Only the process's entry points (the console script, the action's main) may decide
    the environment; everything else passes values on or builds a child's ``env``."""
    entry = ("cli/", "action/", "__main__.py")
    found = [
        name for name, text in _sources() if not name.startswith(entry) and _ENV_WRITE.search(text)
    ]
    assert found == []


def _docstrings(text: str) -> list[str]:
    tree = ast.parse(text)
    nodes = [
        tree,
        *(
            n
            for n in ast.walk(tree)
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
        ),
    ]
    return [doc for node in nodes if (doc := ast.get_docstring(node))]


def test_no_docstring_names_a_developer_machine_path() -> None:
    found = [
        f"{name}: {m.group(0)}"
        for name, text in _sources()
        for doc in _docstrings(text)
        for m in _MACHINE_PATH.finditer(doc)
    ]
    assert found == []


def test_the_patterns_catch_what_they_forbid() -> None:
    assert _FSTRING_MB.search('f"{delta / MB:+.2f} MB"')
    assert _FSTRING_MB.search('f"{value:,.1f} MB"')
    assert not _FSTRING_MB.search('f"{format_mb(value)} MB"')
    assert _ENV_WRITE.search('os.environ["TMPDIR"] = str(tmp)')
    assert not _ENV_WRITE.search('env = dict(os.environ); env["TMPDIR"] = "x"')
    assert _MACHINE_PATH.search("follows /work/shared/specs/rocm-split.md")
    assert not _MACHINE_PATH.search("checked out at /home/runner/work")
