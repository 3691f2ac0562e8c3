#!/usr/bin/env python3
"""Write the input/output tables of README.md and docs/workflows.md from the four action.yml
files (the root, check/, split/, audit/) and the reusable workflow, so the docs can never miss
an input again.

Each table sits between two markers in the Markdown file::

    <!-- generated: action.yml inputs -->
    | Input | Default | Description |
    ...
    <!-- end generated -->

``python scripts/gen_action_docs.py`` rewrites the tables; ``--check`` exits 1 and names the
file when a table differs from what the YAML says (the test suite runs it).
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import yaml

REPO_ROOT = Path(__file__).resolve().parents[1]
ACTION = REPO_ROOT / "action.yml"
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


def action_inputs(path: Path) -> str:
    inputs: Mapping[str, Mapping[str, Any]] = _load(path).get("inputs") or {}
    rows = ["| Input | Default | Description |", "|---|---|---|"]
    rows += [
        f"| `{name}` | {_default(spec.get('default'))} | {_cell(spec.get('description', ''))} |"
        for name, spec in inputs.items()
    ]
    return "\n".join(rows) + "\n"


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


# marker source -> (file, inputs renderer, outputs renderer): the four actions (the nightly
# job at the root, check/, split/, audit/) and the reusable workflow.
SOURCES: dict[str, tuple[Path, Callable[[Path], str], Callable[[Path], str]]] = {
    "action.yml": (ACTION, action_inputs, action_outputs),
    **{
        f"{name}/action.yml": (REPO_ROOT / name / "action.yml", action_inputs, action_outputs)
        for name in ("check", "split", "audit")
    },
    ".github/workflows/wheel-size.yml": (REUSABLE, workflow_inputs, workflow_outputs),
}
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
            f"{doc.relative_to(REPO_ROOT)}: input/output tables differ from the YAML; "
            "run python scripts/gen_action_docs.py",
            file=sys.stderr,
        )
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
