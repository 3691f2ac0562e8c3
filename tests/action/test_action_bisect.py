"""The nightly action's bisect-* inputs: a jump found tonight is bisected with builds on the
fake GitHub (dispatch, github.com's behaviour), the culprit is posted on the night's issue
and the state is kept in the workspace; bad inputs are refused before anything is stored."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from action_runner import run_action, runner_env
from fakegithub import FakeGitHub
from fakegithub.dispatch import add_farm
from regression_world import make_nightly_repo

MB = 1 << 20
FAST = {"WHEEL_SIZE_GITHUB_RETRY": "total=1,backoff=0,between_writes=0"}


def _inputs(**more: str) -> dict[str, str]:
    return {
        "workflow": "21257348", "variants": "cuda12_8", "from": "2025-10-09",
        "to": "2025-10-11", "history-dir": "history", "create-issues": "true",
        "evidence": "false", "build-evidence": "false", **more,
    }  # fmt: skip


def test_a_jump_is_bisected_and_the_culprit_posted(fake_github: FakeGitHub, tmp_path: Path) -> None:
    world = make_nightly_repo(tmp_path, fake_github)
    wf = fake_github.repo("pytorch/pytorch").add_workflow(name="build")
    sizes = {world.main[2]: 850 * MB, world.main[3]: 854 * MB, world.main[4]: 854 * MB}
    farm = add_farm(fake_github, wf, size=lambda sha: sizes[sha], list_after=2)
    inputs = _inputs(**{
        "bisect-build-workflow": "build.yml", "bisect-dispatch-input": "sha",
        "bisect-wait": "30", "bisect-poll-interval": "0.001",
    })  # fmt: skip
    res = run_action(runner_env(fake_github, tmp_path, inputs, extra=FAST))
    assert res.returncode == 0, res.stdout + res.stderr
    assert f"bisect cuda12_8 2025-10-11: done, culprits {world.main[3][:12]}" in res.stdout
    (issue,) = fake_github.repo("pytorch/pytorch").issues
    (comment,) = issue.comments
    assert "**CONFIRMED by bisection**" in comment.body and world.main[3][:12] in comment.body
    kept = tmp_path / "workspace" / "history" / "bisections" / "cuda12_8" / "2025-10-11.json"
    assert json.loads(kept.read_text())["state"] == "done"  # beside the history
    assert len(farm.dispatched) == 3  # the two ends and the one commit between


def test_pending_bisections_resume_on_the_next_runs(
    fake_github: FakeGitHub, tmp_path: Path
) -> None:
    world = make_nightly_repo(tmp_path, fake_github)
    wf = fake_github.repo("pytorch/pytorch").add_workflow(name="build")
    sizes = {world.main[2]: 850 * MB, world.main[3]: 854 * MB, world.main[4]: 854 * MB}
    sizes[world.main[5]] = 850 * MB  # the revert: the 2025-10-12 drop is bisected too
    add_farm(fake_github, wf, size=lambda sha: sizes[sha], list_after=2, steps=3)
    inputs = _inputs(**{
        "bisect-build-workflow": "build.yml", "bisect-dispatch-input": "sha",
        "bisect-state": "bisect-states",
    })  # fmt: skip
    env = runner_env(fake_github, tmp_path, inputs, extra=FAST)
    kept = tmp_path / "workspace" / "bisect-states" / "cuda12_8-2025-10-11.json"
    states = []
    for _ in range(30):
        res = run_action(env)
        assert res.returncode == 0, res.stdout + res.stderr
        states.append(json.loads(kept.read_text())["state"])
        if states[-1] != "pending":
            break
        env.update({"INPUT_FROM": "2025-10-12", "INPUT_TO": "2025-10-12"})  # later nights
    assert states[0] == "pending" and states[-1] == "done" and len(states) > 2
    (issue, *_) = fake_github.repo("pytorch/pytorch").issues
    assert any("**CONFIRMED by bisection**" in c.body for c in issue.comments)
    drop = json.loads((kept.parent / "cuda12_8-2025-10-12.json").read_text())
    assert drop["window"] == [world.main[4], world.main[5]]


def test_bisect_inputs_without_a_build_workflow_are_refused_first(
    fake_github: FakeGitHub, tmp_path: Path
) -> None:
    make_nightly_repo(tmp_path, fake_github)
    res = run_action(runner_env(fake_github, tmp_path, _inputs(**{"bisect-tag-pattern": "x"})))
    assert res.returncode == 2
    assert "input bisect-tag-pattern needs bisect-build-workflow" in res.stdout + res.stderr
    assert not list((tmp_path / "workspace").rglob("*.json"))
    inputs = _inputs(**{"bisect-build-workflow": "b.yml", "bisect-tag-pattern": "no-sha"})
    res = run_action(runner_env(fake_github, tmp_path, inputs))
    assert res.returncode == 2 and "needs {sha}" in res.stdout + res.stderr


def test_the_defaults_alone_bisect_nothing(fake_github: FakeGitHub, tmp_path: Path) -> None:
    """The runner passes every input's default: bisect-builds-per-round: 3 and the rest are
    not a request to bisect (nor an error without bisect-build-workflow)."""
    make_nightly_repo(tmp_path, fake_github)
    res = run_action(runner_env(fake_github, tmp_path, _inputs()))
    assert res.returncode == 0, res.stdout + res.stderr
    assert "bisect" not in res.stdout
    assert not (tmp_path / "workspace" / "history" / "bisections").exists()


def test_a_run_starts_at_most_bisect_max_events(fake_github: FakeGitHub, tmp_path: Path) -> None:
    world = make_nightly_repo(tmp_path, fake_github)
    wf = fake_github.repo("pytorch/pytorch").add_workflow(name="build")
    sizes = dict.fromkeys(world.main, 850 * MB)
    farm = add_farm(fake_github, wf, size=lambda sha: sizes[sha])
    inputs = _inputs(**{
        "to": "2025-10-12", "bisect-build-workflow": "build.yml", "bisect-dispatch-input": "sha",
        "bisect-max-events": "1",
    })  # fmt: skip
    res = run_action(runner_env(fake_github, tmp_path, inputs, extra=FAST))
    assert res.returncode == 0, res.stdout + res.stderr
    assert "bisect cuda12_8 2025-10-11: not started (bisect-max-events: 1 a run)" in res.stdout
    assert "bisect cuda12_8 2025-10-12: pending" in res.stdout
    assert {d["inputs"]["sha"] for d in farm.dispatched} == {world.main[4], world.main[5]}


def _verdict(fake: FakeGitHub) -> str:
    issue = next(i for i in fake.repo("pytorch/pytorch").issues if "2025-10-11" in i.title)
    shown = [line for line in (issue.body or "").splitlines() if not line.startswith("<!--")]
    return "\n".join(shown[:5])  # the first five lines a reader sees


@pytest.mark.parametrize("evidence", ["false", "true"])
def test_the_issue_verdict_follows_the_bisection(
    fake_github: FakeGitHub, tmp_path: Path, evidence: str
) -> None:
    """Issue 28 item 3: while the bisection is pending, the issue's first lines say where the
    step lies and what is building; once done, its culprit is the verdict — with the
    window's builds listed too (build evidence on) or the bisection's builds alone (off)."""
    world = make_nightly_repo(tmp_path, fake_github)
    wf = fake_github.repo("pytorch/pytorch").add_workflow(name="build")
    sizes = {world.main[2]: 850 * MB, world.main[3]: 854 * MB, world.main[4]: 854 * MB}
    add_farm(fake_github, wf, size=lambda sha: sizes[sha], list_after=2, steps=3)
    inputs = _inputs(**{
        "bisect-build-workflow": "build.yml", "bisect-dispatch-input": "sha",
        "bisect-state": "bisect-states", "to": "2025-10-11", "build-evidence": evidence,
        "build-evidence-workflows": "build.yml",
    })  # fmt: skip
    env = runner_env(fake_github, tmp_path, inputs, extra=FAST)
    kept = tmp_path / "workspace" / "bisect-states" / "cuda12_8-2025-10-11.json"
    verdicts = []
    for _ in range(30):
        res = run_action(env)
        assert res.returncode == 0, res.stdout + res.stderr
        verdicts.append(_verdict(fake_github))
        if json.loads(kept.read_text())["state"] != "pending":
            break
        env.update({"INPUT_FROM": "2025-10-11", "INPUT_TO": "2025-10-11"})

    assert "**Verdict: the step lies between `" in verdicts[0], verdicts[0]
    assert "building `" in verdicts[0]
    assert f"**Verdict: caused by `{world.main[3][:12]}`" in verdicts[-1], verdicts[-1]
    assert "CONFIRMED by bisection" in verdicts[-1]


def test_the_build_timeout_input_reaches_the_bisection_budget() -> None:
    """``bisect-build-timeout``: added as one entry of the nightly action's input table (its
    action.yml entry, README row, default and parsing come from there); builds longer than
    the 6 h default (ROCm, full CUDA matrices) are then not cancelled mid-build."""
    from wheel_size.action.bisect import bisect_inputs

    base = {"INPUT_BISECT-BUILD-WORKFLOW": "build.yml", "INPUT_BISECT-DISPATCH-INPUT": "sha"}
    default = bisect_inputs(base, None)
    assert default is not None and default.options.budget.build_timeout == 6 * 3600
    longer = bisect_inputs({**base, "INPUT_BISECT-BUILD-TIMEOUT": "43200"}, None)
    assert longer is not None and longer.options.budget.build_timeout == 43200


@pytest.mark.parametrize(
    ("name", "value", "said"),
    [
        ("INPUT_BISECT-BUILD-TIMEOUT", "0", "input bisect-build-timeout must be positive"),
        ("INPUT_BISECT-MAX-BUILDS", "1", "input bisect-max-builds must be at least 2"),
        ("INPUT_BISECT-DISPATCH-INPUT", "no spaces", "input bisect-dispatch-input 'no spaces'"),
    ],
)
def test_a_bad_bisect_input_is_named_as_the_input_not_the_flag(
    name: str, value: str, said: str
) -> None:
    from wheel_size.action.bisect import bisect_inputs
    from wheel_size.errors import InputError

    env = {"INPUT_BISECT-BUILD-WORKFLOW": "build.yml", "INPUT_BISECT-DISPATCH-INPUT": "sha"}
    with pytest.raises(InputError) as raised:
        bisect_inputs({**env, name: value}, None)
    assert str(raised.value).startswith(said) and "--" not in str(raised.value)
