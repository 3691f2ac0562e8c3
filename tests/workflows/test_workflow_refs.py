"""Our own reference check: every ``with:`` names an existing input, every ``${{ inputs.x }}``
is declared, in our workflows, the examples people copy and the Markdown snippets."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml
from workflow_files import (
    ACTION,
    REPO_ROOT,
    REUSABLE,
    action_env_problems,
    call_problems,
    declared_inputs,
    load_yaml,
    markdown_snippets,
    undefined_references,
    workflow_files,
)

DOCS = sorted([REPO_ROOT / "README.md", *(REPO_ROOT / "docs").rglob("*.md")])


def _files_with_inputs() -> list[Path]:
    return [*workflow_files(), *([ACTION] if ACTION.is_file() else [])]


@pytest.mark.parametrize("path", _files_with_inputs(), ids=lambda p: str(p.relative_to(REPO_ROOT)))
def test_every_input_and_secret_reference_is_declared(path: Path) -> None:
    assert undefined_references(path) == []


@pytest.mark.parametrize("path", workflow_files(), ids=lambda p: str(p.relative_to(REPO_ROOT)))
def test_calls_of_our_workflow_and_action_use_existing_inputs(path: Path) -> None:
    assert call_problems(load_yaml(path), str(path.relative_to(REPO_ROOT))) == []


def test_the_writer_passes_only_inputs_the_action_declares() -> None:
    if not ACTION.is_file():
        pytest.skip("action.yml is not in this checkout yet")
    assert action_env_problems(load_yaml(REUSABLE), "wheel-size.yml") == []
    broken = load_yaml(REUSABLE)
    step = next(
        s for s in broken["jobs"]["track"]["steps"] if "wheel_size.action" in s.get("run", "")
    )
    step["env"]["INPUT_THRESHOLD_MB"] = "1"  # underscore: the runner would not produce this
    assert any("INPUT_THRESHOLD_MB" in p for p in action_env_problems(broken, "broken"))


def test_every_example_calls_our_workflow_or_action() -> None:
    examples = sorted((REPO_ROOT / "docs" / "examples").glob("*.yml"))
    assert {p.name for p in examples} >= {"nightly.yml", "pull-request-split.yml", "backfill.yml"}
    for path in examples:
        text = path.read_text()
        if path.name == "pr-size-build.yml":  # builds only; its partner calls the action
            assert "pr-size-comment.yml" in text
            continue
        if path.name.startswith("bisect-build-"):  # builds one commit; bisect-nightly.yml calls
            assert "bisect-nightly.yml" in text
            continue
        assert "wheel-size.yml@" in text or re.search(r"wheel-size-action(/\w+)?@", text), path


@pytest.mark.parametrize("path", DOCS, ids=lambda p: str(p.relative_to(REPO_ROOT)))
def test_markdown_snippets_use_existing_inputs(path: Path) -> None:
    problems = []
    for label, block in markdown_snippets(path):
        try:
            doc = yaml.safe_load(block)
        except yaml.YAMLError as exc:
            problems.append(f"{label}: not valid YAML: {exc}")
            continue
        problems.extend(call_problems(doc, label))
    assert problems == []


def test_reusable_workflow_declares_the_documented_interface() -> None:
    inputs = declared_inputs(REUSABLE)
    for name in (
        "repository",
        "workflow",
        "branch",
        "variants",
        "threshold-mb",
        "threshold-pct",
        "data-branch",
        "create-issues",
        "backfill-from",
        "split-artifact",
    ):
        assert name in inputs, name
    jobs = load_yaml(REUSABLE)["jobs"]
    writer = jobs["track"]["concurrency"]
    assert writer["cancel-in-progress"] is False
    # Only the fan-in job writes: no other job may ask for write access.
    for job_id, job in jobs.items():
        for scope, level in (job.get("permissions") or {}).items():
            assert level != "write" or job_id in ("track", "split"), (job_id, scope)


# The checker itself must be able to fail: feed it calls that are wrong.
BROKEN_CALLER = """
on: push
jobs:
  a:
    uses: someone/wheel-size-action/.github/workflows/wheel-size.yml@v1
    with:
      thresold-mb: 5
      create-issues: "yes"
      threshold-pct: five
    secrets:
      tokn: x
"""


def test_the_checker_finds_wrong_calls() -> None:
    problems = call_problems(yaml.safe_load(BROKEN_CALLER), "broken")
    assert any("unknown input 'thresold-mb'" in p for p in problems)
    assert any("create-issues is a boolean" in p for p in problems)
    assert any("threshold-pct is a number" in p for p in problems)
    assert any("unknown secret 'tokn'" in p for p in problems)


def test_the_checker_finds_undeclared_references(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yml"
    text = REUSABLE.read_text().replace("${{ inputs.branch }}", "${{ inputs.brnch }}", 1)
    text = text.replace("secrets.token ||", "secrets.tokn ||", 1)
    bad.write_text(text)
    problems = undefined_references(bad)
    assert any("inputs.brnch is not declared" in p for p in problems)
    assert any("secrets.tokn is not declared" in p for p in problems)


BROKEN_STEP = """
on: push
jobs:
  a:
    runs-on: ubuntu-latest
    steps:
      - uses: someone/wheel-size-action/check@v1
        with:
          check-wheels: dist
          split-input: dist/*.whl
      - uses: someone/wheel-size-action/split@v1.2.0
        with:
          split-input: dist/*.whl
"""


def test_the_checker_knows_each_action_s_inputs() -> None:
    problems = call_problems(yaml.safe_load(BROKEN_STEP), "broken")
    assert problems == [
        "broken: jobs.a.steps[0] passes unknown input 'split-input' to "
        "someone/wheel-size-action/check@v1"
    ]
