"""Every copyable workflow carries a concurrency group (issue 17: overlapping runs opened one
issue per run for the same jump). Runs that write the data branch or open issues wait and
never cancel a running one; none reuses the called workflow's own writer group."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((ROOT / "docs" / "examples").glob("*.yml"))
WRITER_GROUP = "wheel-size-data-"  # the track job's group in .github/workflows/wheel-size.yml


def readme_workflows() -> list[dict[str, object]]:
    """The README's complete workflows (a YAML block with ``on:``), not job snippets."""
    text = (ROOT / "README.md").read_text()
    blocks = re.findall(r"```yaml\n(.*?)```", text, flags=re.S)
    loaded = [yaml.safe_load(b) for b in blocks]
    return [b for b in loaded if isinstance(b, dict) and True in b]  # YAML reads on: as True


def writes_history(workflow: dict[str, object]) -> bool:
    text = yaml.safe_dump(workflow)
    return (
        "mode: split" not in text
        and "mode: check" not in text
        and ("wheel-size.yml" in text or "workflow:" in text)
    )


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_every_example_has_a_concurrency_group(path: Path) -> None:
    workflow = yaml.safe_load(path.read_text())
    group = workflow.get("concurrency")
    assert isinstance(group, dict) and group.get("group"), f"{path.name}: no concurrency group"
    assert WRITER_GROUP not in str(group["group"])
    if path.name in ("nightly.yml", "backfill.yml"):
        assert group.get("cancel-in-progress") is False  # wait, never cancel a writer


def test_the_readme_tracking_example_has_one() -> None:
    workflows = readme_workflows()
    assert workflows, "the README has no complete workflow example"
    for workflow in workflows:
        group = workflow.get("concurrency")
        assert isinstance(group, dict) and group.get("group")
        if writes_history(workflow):
            assert group.get("cancel-in-progress") is False
