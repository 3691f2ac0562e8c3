"""Four actions, one image: each action.yml declares exactly the inputs its job reads, an
input of another action is an error naming that action, and the root action's ``mode:``
still runs the others for v1 with a deprecation warning."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from action_runner import run_action, runner_env
from conftest import REPO_ROOT
from fakegithub import FakeGitHub
from wheel_factory import make_1747_matrix
from wheel_size.action.catalog import ACTIONS, check_inputs
from wheel_size.errors import InputError


@pytest.mark.parametrize("name", sorted(ACTIONS))
def test_the_catalog_matches_each_action_yml(name: str) -> None:
    spec = ACTIONS[name]
    metadata = yaml.safe_load((REPO_ROOT / spec.directory / "action.yml").read_text())
    assert set(metadata["inputs"]) == set(spec.inputs)
    args = metadata["runs"].get("args")
    assert args == ([name] if spec.directory else None)


def test_an_input_of_another_action_names_it() -> None:
    env = {"INPUT_CHECK-WHEELS": "dist", "INPUT_WORKFLOW": "nightly.yml"}
    with pytest.raises(InputError) as caught:
        check_inputs(env, ACTIONS["track"].inputs, ACTIONS["track"])
    assert str(caught.value) == (
        "input check-wheels is not an input of the nightly action; it belongs to the check "
        "action: move it to a step with uses: OWNER/wheel-size-action/check@v1"
    )
    shared = {"INPUT_REPORT-PATH": "r.md", "INPUT_CEILING-MB": "1"}
    with pytest.raises(InputError, match=r"report-path .* belongs to the nightly action and the"):
        check_inputs({"INPUT_REPORT-PATH": "r.md"}, ACTIONS["split"].inputs, ACTIONS["split"])
    check_inputs({**shared, "INPUT_SOMETHING-ELSE": "x"}, ACTIONS["track"].inputs, ACTIONS["track"])


@pytest.mark.parametrize("mode", ["audit", "split", "check"])
def test_mode_stops_with_one_line_naming_the_action(
    fake_github: FakeGitHub, tmp_path: Path, mode: str
) -> None:
    """Issue 32: ``mode:`` on the root action ran the job with the root's defaults (a split
    of 12 wheels instead of 17, no comment, track's report overwritten); it now stops with
    one line naming the action to use, before any work."""
    make_1747_matrix(tmp_path / "workspace" / "artifacts")
    env = runner_env(fake_github, tmp_path, {"mode": mode, "audit-input": "artifacts"})
    done = run_action(env)
    assert done.returncode == 2, done.stdout + done.stderr
    errors = [line for line in done.stdout.splitlines() if line.startswith("::error")]
    assert errors == [
        f"::error title=wheel-size::input mode: {mode} is no longer run by this action (its "
        f"defaults differ from the {mode} action's): use "
        f"`uses: OWNER/wheel-size-action/{mode}@v1` with the same inputs"
    ]
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "workspace" / "wheel-size-report.md").exists()


def test_a_failed_run_of_any_action_has_a_step_summary(
    fake_github: FakeGitHub, tmp_path: Path
) -> None:
    for action, inputs in (("check", {}), ("split", {}), ("audit", {"audit-input": "none"})):
        (tmp_path / "summary").write_text("")
        env = runner_env(fake_github, tmp_path, inputs, action=action)
        done = run_action(env, action)
        assert done.returncode == 2, done.stdout
        summary = (tmp_path / "summary").read_text()
        assert summary.startswith("**wheel-size failed:** "), (action, summary)
