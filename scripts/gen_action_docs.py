#!/usr/bin/env python3
"""Write the four action.yml files' inputs and the input/output tables of README.md and
docs/workflows.md from their one declaration: each action's inputs from its table in
src/wheel_size/action/tables/ (issue 33 item 4), outputs from action.yml, and the reusable
workflow's from its YAML, so no file can miss an input again.

Each table sits between two markers in the Markdown file::

    <!-- generated: action.yml inputs -->
    | Input | Default | Description |
    ...
    <!-- end generated -->

The ``inputs:`` block of each ``action.yml`` (up to ``outputs:``) is generated whole.
``python scripts/gen_action_docs.py`` rewrites the blocks and the tables; ``--check`` exits 1
and names each file that differs from its declaration (the test suite runs it).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import yaml

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT / "src"))  # this checkout's tables, not an installed copy

from wheel_size.action.catalog import ACTIONS  # noqa: E402
from wheel_size.action.inputs import ActionSpec  # noqa: E402

REUSABLE = REPO_ROOT / ".github" / "workflows" / "wheel-size.yml"

_BLOCK = re.compile(
    r"(<!-- generated: (?P<source>[\w./-]+) (?P<kind>inputs|outputs) -->\n)"
    r"(?P<body>.*?)"
    r"(<!-- end generated -->)",
    re.DOTALL,
)


def _cell(text: object) -> str:
    """One table cell: a single line, pipes escaped, angle brackets kept literal."""
    flat = " ".join(str(text).split())
    return flat.replace("|", "\\|").replace("<", "&lt;")


def _default(value: object) -> str:
    if value is None or value == "":
        return "—"
    if isinstance(value, bool):
        value = str(value).lower()
    return f"`{value}`"


def _load(path: Path) -> dict[str, Any]:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    if not isinstance(data, dict):
        raise SystemExit(f"{path}: not a YAML mapping")
    return data


def inputs_table(spec: ActionSpec) -> str:
    """The README table of an action's inputs, from its declaration."""
    rows = ["| Input | Default | Description |", "|---|---|---|"]
    rows += [
        f"| `{i.name}` | {_default(i.default)} | {_cell(i.description)} |" for i in spec.declared
    ]
    return "\n".join(rows) + "\n"


def _scalar(text: str) -> str:
    """``text`` as a YAML scalar: plain when YAML reads it back as the same string, else
    double-quoted (a JSON string is a YAML double-quoted scalar)."""
    plain = (
        text != ""
        and text == text.strip()
        and not any(mark in text for mark in (": ", " #", "\n", "\t"))
        and text[0] not in "!&*|>'\"%@`#,[]{}?:-"
    )
    if plain:
        try:
            plain = yaml.safe_load(f"k: {text}") == {"k": text}
        except yaml.YAMLError:
            plain = False
    return text if plain else json.dumps(text, ensure_ascii=False)


def inputs_yaml(spec: ActionSpec) -> str:
    """The ``inputs:`` block of an action's ``action.yml``, from its declaration."""
    lines = ["inputs:"]
    for declared in spec.declared:
        lines += [f"  {declared.name}:", f"    description: {_scalar(declared.description)}"]
        if declared.deprecation:
            lines.append(f"    deprecationMessage: {_scalar(declared.deprecation)}")
        lines += ["    required: false", f"    default: {_scalar(declared.default)}"]
    return "\n".join(lines) + "\n"


_INPUTS_BLOCK = re.compile(r"^inputs:\n(?:[ #].*\n|\n)*", re.MULTILINE)


def regenerate_action_yml(text: str, spec: ActionSpec, path: Path) -> str:
    """``action.yml``'s text with its ``inputs:`` block rewritten from ``spec``."""
    if len(_INPUTS_BLOCK.findall(text)) != 1:
        raise SystemExit(f"{path}: no single top-level inputs: block")
    return _INPUTS_BLOCK.sub(lambda _: inputs_yaml(spec), text)


def action_yml_path(spec: ActionSpec) -> Path:
    return REPO_ROOT / spec.directory / "action.yml"


def _outputs_table(outputs: Mapping[str, Mapping[str, Any]]) -> str:
    rows = ["| Output | Description |", "|---|---|"]
    rows += [
        f"| `{name}` | {_cell(spec.get('description', ''))} |" for name, spec in outputs.items()
    ]
    return "\n".join(rows) + "\n"


def action_outputs(path: Path) -> str:
    return _outputs_table(_load(path).get("outputs") or {})


def _workflow_call(path: Path) -> Mapping[str, Any]:
    data: Mapping[Any, Any] = _load(path)
    on = data.get("on") or data.get(True) or {}  # PyYAML reads `on:` as True
    call: Mapping[str, Any] = on.get("workflow_call") or {}
    return call


def workflow_inputs(path: Path) -> str:
    inputs: Mapping[str, Mapping[str, Any]] = _workflow_call(path).get("inputs") or {}
    rows = ["| Input | Type | Default | Description |", "|---|---|---|---|"]
    rows += [
        f"| `{name}` | {spec.get('type', 'string')} | {_default(spec.get('default'))} "
        f"| {_cell(spec.get('description', ''))} |"
        for name, spec in inputs.items()
    ]
    return "\n".join(rows) + "\n"


def workflow_outputs(path: Path) -> str:
    return _outputs_table(_workflow_call(path).get("outputs") or {})


def _table_of(spec: ActionSpec) -> Callable[[Path], str]:
    return lambda _path: inputs_table(spec)


# marker source -> (file, inputs renderer, outputs renderer): the four actions (the nightly
# job at the root, check/, split/, audit/; inputs from their tables) and the reusable workflow.
SOURCES: dict[str, tuple[Path, Callable[[Path], str], Callable[[Path], str]]] = {
    **{
        action_yml_path(spec).relative_to(REPO_ROOT).as_posix(): (
            action_yml_path(spec), _table_of(spec), action_outputs,
        )
        for spec in ACTIONS.values()
    },
    ".github/workflows/wheel-size.yml": (REUSABLE, workflow_inputs, workflow_outputs),
}  # fmt: skip
DOCS = [REPO_ROOT / "README.md", REPO_ROOT / "docs" / "workflows.md"]


def regenerate(text: str, doc: Path) -> str:
    """``text`` with every generated table replaced by what its YAML says now."""

    def table(match: re.Match[str]) -> str:
        source = match["source"]
        if source not in SOURCES:
            raise SystemExit(f"{doc}: unknown generated-table source {source!r}")
        path, inputs, outputs = SOURCES[source]
        body = (inputs if match["kind"] == "inputs" else outputs)(path)
        return f"{match.group(1)}{body}{match.group(5)}"

    return _BLOCK.sub(table, text)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="fail when a table is stale")
    args = parser.parse_args(argv)
    stale = []
    for spec in ACTIONS.values():
        path = action_yml_path(spec)
        text = path.read_text(encoding="utf-8")
        new = regenerate_action_yml(text, spec, path)
        if new == text:
            continue
        if args.check:
            stale.append(path)
        else:
            path.write_text(new, encoding="utf-8")
            print(f"rewrote the inputs of {path.relative_to(REPO_ROOT)}")
    for doc in DOCS:
        text = doc.read_text(encoding="utf-8")
        new = regenerate(text, doc)
        if new == text:
            continue
        if args.check:
            stale.append(doc)
        else:
            doc.write_text(new, encoding="utf-8")
            print(f"rewrote the tables of {doc.relative_to(REPO_ROOT)}")
    for doc in stale:
        print(
            f"{doc.relative_to(REPO_ROOT)}: differs from the declared inputs "
            "(src/wheel_size/action/tables/); run python scripts/gen_action_docs.py",
            file=sys.stderr,
        )
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
