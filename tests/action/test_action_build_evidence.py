"""The build-evidence inputs of action.yml reach ``track`` as its flags, and parse."""

from __future__ import annotations

from pathlib import Path

from wheel_size.action.main import action_argv
from wheel_size.cli.main import build_parser
from wheel_size.regressions.options import build_evidence_options_from_args


def _env(tmp_path: Path, **inputs: str) -> dict[str, str]:
    env = {"GITHUB_WORKSPACE": str(tmp_path), "INPUT_WORKFLOW": "nightly.yml", "INPUT_BRANCH": ""}
    env.update({f"INPUT_{k.upper()}": v for k, v in inputs.items()})
    return env


def test_inputs_become_build_evidence_options(tmp_path: Path) -> None:
    argv = action_argv(
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
        )
    )
    args = build_parser().parse_args(argv)
    options = build_evidence_options_from_args(args)
    assert options.enabled is False
    assert options.workflows == ("linux-binary-*", "manywheel-*")
    assert options.log_patterns[0].pattern == r"wheel is (?P<size>\d+) bytes"
    assert options.log_url_template == "https://logs.example/log/{job_id}"
    assert options.commit_url("abc") == "https://hud.example/o/r/commit/abc"


def test_defaults_leave_the_flags_out(tmp_path: Path) -> None:
    argv = action_argv(_env(tmp_path, **{"create-issues": "true"}))
    assert not [a for a in argv if "build-evidence" in a or "url-template" in a]
    options = build_evidence_options_from_args(build_parser().parse_args(argv))
    assert options.enabled and options.top == 3 and options.workflows == ()
