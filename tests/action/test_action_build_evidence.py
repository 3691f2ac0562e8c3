"""The build-evidence inputs of action.yml become the nightly's BuildEvidenceOptions directly
(no command line in between), and bad ones name the input."""

from __future__ import annotations

from pathlib import Path

import pytest

from wheel_size.action.track_inputs import track_inputs
from wheel_size.errors import InputError


def _env(tmp_path: Path, **inputs: str) -> dict[str, str]:
    env = {"GITHUB_WORKSPACE": str(tmp_path), "GITHUB_REPOSITORY": "pytorch/pytorch"}
    env.update({"INPUT_WORKFLOW": "nightly.yml", "INPUT_BRANCH": ""})
    env.update({f"INPUT_{k.upper()}": v for k, v in inputs.items()})
    env.setdefault("INPUT_HISTORY-DIR", "history")
    return env


def test_inputs_become_build_evidence_options(tmp_path: Path) -> None:
    inputs = track_inputs(
        _env(
            tmp_path,
            **{
                "create-issues": "true",
                "build-evidence": "false",
                "build-evidence-workflows": "linux-binary-*, manywheel-*",
                "build-evidence-log-pattern": r"wheel is (?P<size>\d+) bytes",
                "log-url-template": "https://logs.example/log/{job_id}",
                "commit-url-template": "https://hud.example/o/r/commit/{sha}",
            },
        ),
        tmp_path,
    )
    assert inputs.nightly.issues is not None
    options = inputs.nightly.issues.builds
    assert options.enabled is False
    assert options.workflows == ("linux-binary-*", "manywheel-*")
    assert options.log_patterns[0].pattern == r"wheel is (?P<size>\d+) bytes"
    assert options.log_url_template == "https://logs.example/log/{job_id}"
    assert options.commit_url("abc") == "https://hud.example/o/r/commit/abc"


def test_defaults(tmp_path: Path) -> None:
    inputs = track_inputs(_env(tmp_path, **{"create-issues": "true"}), tmp_path)
    assert inputs.nightly.issues is not None
    options = inputs.nightly.issues.builds
    assert options.enabled and options.top == 10 and options.workflows == ()


def test_a_bad_template_names_the_input(tmp_path: Path) -> None:
    env = _env(tmp_path, **{"create-issues": "true", "log-url-template": "ftp://x/{job_id}"})
    with pytest.raises(InputError, match="input log-url-template"):
        track_inputs(env, tmp_path)


def test_job_pattern_and_reach_table_inputs(tmp_path: Path) -> None:
    (tmp_path / "reach.yaml").write_text("submodules:\n  mylib: {kind: rocm}\n", encoding="utf-8")
    env = _env(
        tmp_path,
        **{
            "create-issues": "true",
            "build-evidence-job-pattern": "wheel-{variant}-{python}",
            "reach-table": "reach.yaml",
        },
    )
    issues = track_inputs(env, tmp_path).nightly.issues
    assert issues is not None
    assert issues.builds.job_pattern == "wheel-{variant}-{python}"
    assert issues.reach_table is not None
    assert issues.reach_table.submodule("third_party/mylib").kind == "rocm"  # type: ignore[union-attr]


def test_bad_job_pattern_and_reach_table_name_the_input_or_file(tmp_path: Path) -> None:
    env = _env(tmp_path, **{"create-issues": "true", "build-evidence-job-pattern": "wheel-build"})
    with pytest.raises(InputError, match="input build-evidence-job-pattern"):
        track_inputs(env, tmp_path)
    (tmp_path / "reach.yaml").write_text("patterns:\n  nope: ['x']\n", encoding="utf-8")
    env = _env(tmp_path, **{"create-issues": "true", "reach-table": "reach.yaml"})
    with pytest.raises(InputError, match=r"reach\.yaml: patterns\.nope: unknown key"):
        track_inputs(env, tmp_path)
