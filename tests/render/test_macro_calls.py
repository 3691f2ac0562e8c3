"""Every sentence said through ``render_macro`` names a macro its template defines, with the
arguments the macro takes; every macro of those templates is said somewhere (issue 33 item 2).

The words moved from Python into macro templates (``ranking_reasons.txt.j2``,
``build_verdict.txt.j2`` …) are reached only on the branch that says them: a misspelt name or
argument in a rare branch (a request budget spent, a log naming several wheels) would fail
only on the night it is taken. This reads the calls from the source instead.
"""

from __future__ import annotations

import ast
from collections import defaultdict

from jinja2 import nodes

from conftest import REPO_ROOT
from wheel_size.render.templates import _environment, template_dir

SRC = REPO_ROOT / "src" / "wheel_size"


def _const(node: ast.AST) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _calls() -> list[tuple[str, str, str, set[str]]]:
    """(where, template, macro, keyword names) of every macro said in the source: direct
    ``render_macro("t", "m", …)`` calls, and calls of a module's helper whose body is
    ``render_macro("t", <its first parameter>, **values)``."""
    found = []
    for path in sorted(SRC.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        where = path.relative_to(SRC).as_posix()
        helpers: dict[str, str] = {}
        for fn in ast.walk(tree):
            if not isinstance(fn, ast.FunctionDef) or not fn.args.args:
                continue
            for call in ast.walk(fn):
                if (
                    isinstance(call, ast.Call)
                    and isinstance(call.func, ast.Name)
                    and call.func.id == "render_macro"
                    and len(call.args) >= 2
                    and isinstance(call.args[1], ast.Name)
                    and call.args[1].id == fn.args.args[0].arg
                    and _const(call.args[0])
                ):
                    helpers[fn.name] = _const(call.args[0]) or ""
        for call in ast.walk(tree):
            if not isinstance(call, ast.Call) or not isinstance(call.func, ast.Name):
                continue
            keywords = {k.arg for k in call.keywords if k.arg}
            name = call.func.id
            if name == "render_macro" and len(call.args) >= 2:
                template, macro = _const(call.args[0]), _const(call.args[1])
                if template and macro:
                    found.append((where, template, macro, keywords))
            elif name in helpers and call.args and _const(call.args[0]):
                found.append((where, helpers[name], _const(call.args[0]) or "", keywords))
    return found


def _macros(template: str) -> dict[str, tuple[set[str], set[str]]]:
    """Macro name → (its parameters, those with a default) of a template."""
    source = (template_dir() / template).read_text(encoding="utf-8")
    out = {}
    for macro in _environment().parse(source).find_all(nodes.Macro):
        params = {a.name for a in macro.args}
        defaulted = {a.name for a in macro.args[len(macro.args) - len(macro.defaults) :]}
        out[macro.name] = (params, defaulted)
    return out


def test_every_macro_said_exists_with_its_arguments() -> None:
    calls = _calls()
    assert len(calls) > 100  # the reader finds the calls (ranking, builds, issues, evidence)
    wrong = []
    for where, template, macro, keywords in calls:
        defined = _macros(template)
        if macro not in defined:
            wrong.append(f"{where}: {template} has no macro {macro}")
            continue
        params, defaulted = defined[macro]
        if keywords != params and not (params - defaulted <= keywords <= params):
            wrong.append(f"{where}: {macro}({sorted(keywords)}) but it takes {sorted(params)}")
    assert wrong == []


def test_every_macro_of_a_said_template_is_said() -> None:
    said: dict[str, set[str]] = defaultdict(set)
    for _, template, macro, _ in _calls():
        said[template].add(macro)
    unused = {
        template: sorted(set(_macros(template)) - macros - _INTERNAL.get(template, set()))
        for template, macros in said.items()
    }
    assert {t: m for t, m in unused.items() if m} == {}


#: Macros called only by other macros of their template.
_INTERNAL = {"build_verdict.txt.j2": {"failed_note"}}
