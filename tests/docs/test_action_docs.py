"""The README's input/output tables are generated from action.yml; they must never drift."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import yaml

REPO_ROOT = Path(__file__).resolve().parents[2]
SCRIPT = REPO_ROOT / "scripts" / "gen_action_docs.py"


def test_readme_tables_match_action_yml() -> None:
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--check"], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr


def test_every_action_input_and_output_is_in_the_readme() -> None:
    action = yaml.safe_load((REPO_ROOT / "action.yml").read_text(encoding="utf-8"))
    readme = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    names = set(re.findall(r"^\| `([\w-]+)` \|", readme, re.MULTILINE))
    assert set(action["inputs"]) <= names
    assert set(action["outputs"]) <= names


def test_the_workflow_docs_list_every_reusable_workflow_input() -> None:
    workflow = yaml.safe_load(
        (REPO_ROOT / ".github" / "workflows" / "wheel-size.yml").read_text(encoding="utf-8")
    )
    declared = set(workflow[True]["workflow_call"]["inputs"])  # PyYAML reads `on:` as True
    doc = (REPO_ROOT / "docs" / "workflows.md").read_text(encoding="utf-8")
    listed = set(re.findall(r"^\| `([\w-]+)` \| (?:string|number|boolean) \|", doc, re.MULTILINE))
    assert declared == listed


def test_a_stale_table_is_named(tmp_path: Path) -> None:
    sys.path.insert(0, str(SCRIPT.parent))
    try:
        import gen_action_docs
    finally:
        sys.path.remove(str(SCRIPT.parent))
    stale = "<!-- generated: action.yml inputs -->\n| old |\n<!-- end generated -->\n"
    fresh = gen_action_docs.regenerate(stale, tmp_path / "README.md")
    assert "| old |" not in fresh
    assert "`github-token`" in fresh
    assert gen_action_docs.regenerate(fresh, tmp_path / "README.md") == fresh
