"""Issue 28: every build in the window, read in a few pages, bracketed, and each candidate's
status from the builds around it — through PyGithub against the fake GitHub."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

import pytest

from fakegithub import FakeGitHub, Repo, Run
from wheel_size.github.checks import GitHubBuilds
from wheel_size.github.client import RetryPolicy, connect
from wheel_size.regressions.builds.bracket import BracketResult, BuildPoint, bracket_steps
from wheel_size.regressions.builds.evidence import (
    BuildEvidenceOptions,
    SuspectRef,
    verify_candidates,
)
from wheel_size.regressions.builds.window import (
    WindowBuilds,
    configured_noise_band,
    read_window_builds,
    verdicts_from_brackets,
)
from wheel_size.regressions.ranking.evidence import CLEARED, CONFIRMED, LIKELY, NOT_CONFIRMED

MB = 1 << 20
FAST = RetryPolicy(total=0, backoff=0.0, between_writes=0.0, timeout=10)
ARTIFACT = "manywheel-py3_12-cuda12_8"
OLD = 900 * MB
JUMP = 4 * MB
BASE_SHA = "b" * 40
COMMITS = [f"{i:x}" * 40 for i in range(1, 9)]  # 8 commits: 1111…, 2222…, …, 8888…
NIGHT_BEFORE, NIGHT_AFTER = dt.date(2025, 10, 10), dt.date(2025, 10, 11)
OPTIONS = BuildEvidenceOptions()


@dataclass
class World:
    fake: FakeGitHub
    repo: Repo

    def build(
        self,
        sha: str,
        size: int | None,
        conclusion: str = "success",
        workflow: str = "linux-binary-manywheel",
        created: str = "2025-10-10T12:00:00Z",
    ) -> Run:
        found = [w for w in self.repo.workflows if w.name == workflow]
        wf = found[0] if found else self.repo.add_workflow(name=workflow)
        run = wf.add_run(created, head_sha=sha, head_branch="main", conclusion=conclusion)
        if size is not None:
            run.add_artifact(ARTIFACT, size_in_bytes=size, expired=True)
        return run

    def port(self) -> GitHubBuilds:
        return GitHubBuilds(connect(self.fake.token, self.fake.url, retry=FAST), "pytorch/pytorch")

    def read(self, options: BuildEvidenceOptions = OPTIONS) -> WindowBuilds:
        return read_window_builds(
            self.port(), commits=COMMITS, base_sha=BASE_SHA,
            start=NIGHT_BEFORE - dt.timedelta(days=1), end=NIGHT_AFTER + dt.timedelta(days=3),
            variant="cuda12_8", artifact=ARTIFACT, options=options,
        )  # fmt: skip

    def locate(self, jump: int = JUMP) -> tuple[BracketResult, dict[str, str], dict[str, str]]:
        found = self.read()
        night = "nightly"
        result = bracket_steps(
            COMMITS, found.points, noise_bytes=configured_noise_band(jump, OPTIONS),
            base=BuildPoint(BASE_SHA, OLD, "success", source=night),
            head=BuildPoint(COMMITS[-1], OLD + jump, "success", source=night),
        )  # fmt: skip
        verdicts = verdicts_from_brackets(result, COMMITS, jump_bytes=jump, options=OPTIONS)
        return (
            result,
            {s: v.status for s, v in verdicts.items()},
            {s: v.reason for s, v in verdicts.items()},
        )


@pytest.fixture
def world(fake_github: FakeGitHub) -> World:
    repo = fake_github.add_repo("pytorch/pytorch")
    parent = BASE_SHA
    repo.add_commit(BASE_SHA, "base", files=["a.cpp"])
    for i, sha in enumerate(COMMITS):
        repo.add_commit(sha, f"commit {i} (#{1000 + i})", files=["b.cpp"], parents=[parent])
        parent = sha
    return World(fake_github, repo)


def _api(fake: FakeGitHub) -> int:
    return sum(1 for r in fake.requests if not r.path.startswith(("/_joblogs/", "/_mirror/")))


def test_sparse_existing_builds_narrow_the_bracket_before_anything_is_built(world: World) -> None:
    """Builds at commits 2 (old size) and 5 (new size): the step lies in commits 3–5; the
    commits outside are NOT CONFIRMED by the builds around them, named."""
    world.build(COMMITS[1], OLD + 20_000)
    world.build(COMMITS[4], OLD + JUMP)
    result, status, reason = world.locate()
    assert [(b.first_index, b.last_index) for b in result.brackets] == [(2, 4)]
    assert result.brackets[0].before_build.sha == COMMITS[1]
    for sha in (*COMMITS[:2], *COMMITS[5:]):
        assert status[sha] == NOT_CONFIRMED, reason[sha]
        assert "within the noise" in reason[sha]
    assert COMMITS[1][:12] in reason[COMMITS[0]]  # the build that answers it is named
    for sha in COMMITS[2:5]:
        assert status[sha] == LIKELY and "one of 3 commits" in reason[sha]


def test_a_one_commit_bracket_is_confirmed(world: World) -> None:
    world.build(COMMITS[3], OLD)
    world.build(COMMITS[4], OLD + int(3.9 * MB))
    result, status, reason = world.locate()
    assert [(b.first_index, b.last_index) for b in result.brackets] == [(4, 4)]
    assert result.brackets[0].single
    assert status[COMMITS[4]] == CONFIRMED, reason[COMMITS[4]]
    assert status[COMMITS[3]] == NOT_CONFIRMED


def test_a_build_that_moved_the_other_way_is_cleared(world: World) -> None:
    """The seed's cudnn frontend: it landed where the size went down: CLEARED, not NOT
    CONFIRMED."""
    world.build(COMMITS[1], OLD)
    world.build(COMMITS[2], OLD - int(1.5 * MB))
    world.build(COMMITS[6], OLD - int(1.5 * MB))
    world.build(COMMITS[7], OLD + JUMP)
    _, status, reason = world.locate()
    assert status[COMMITS[2]] == CLEARED, reason[COMMITS[2]]
    assert "the other way" in reason[COMMITS[2]]
    assert status[COMMITS[7]] == CONFIRMED, reason[COMMITS[7]]


def test_a_build_within_the_noise_is_not_confirmed(world: World) -> None:
    world.build(COMMITS[4], OLD)
    world.build(COMMITS[5], OLD + 60_000)  # 0.06 MB: the noise band is 0.2 MB
    _, status, reason = world.locate()
    assert status[COMMITS[5]] == NOT_CONFIRMED, reason[COMMITS[5]]
    assert "within the noise" in reason[COMMITS[5]]


def test_two_steps_are_two_brackets(world: World) -> None:
    world.build(COMMITS[1], OLD)
    world.build(COMMITS[2], OLD + 2 * MB)
    world.build(COMMITS[5], OLD + 2 * MB)
    world.build(COMMITS[6], OLD + JUMP)
    result, status, _ = world.locate()
    assert [(b.first_index, b.last_index) for b in result.brackets] == [(2, 2), (6, 6)]
    assert [b.delta for b in result.brackets] == [2 * MB, JUMP - 2 * MB]
    assert status[COMMITS[2]] == CONFIRMED and status[COMMITS[6]] == CONFIRMED
    assert status[COMMITS[4]] == NOT_CONFIRMED


def test_a_failed_build_is_said_never_guessed_around(world: World) -> None:
    world.build(COMMITS[2], OLD)
    world.build(COMMITS[3], None, conclusion="failure")
    world.build(COMMITS[4], OLD + JUMP)
    result, status, reason = world.locate()
    assert [(b.first_index, b.last_index) for b in result.brackets] == [(3, 4)]
    assert [p.sha for _, p in result.failed] == [COMMITS[3]]
    assert status[COMMITS[3]] == LIKELY
    assert "its own build failed" in reason[COMMITS[3]] and "failure" in reason[COMMITS[3]]
    assert "one of 2 commits" in reason[COMMITS[4]]


def test_no_build_inside_the_window_is_said_not_looked_up(world: World) -> None:
    _, status, reason = world.locate()
    assert set(status.values()) == {LIKELY}
    assert all(r.startswith("no build checked it: ") for r in reason.values())
    assert not any("not looked up" in r for r in reason.values())  # plain words
    assert not any("no per-commit size data" in r for r in reason.values())


def test_reading_a_windows_builds_costs_a_few_pages(world: World) -> None:
    """250 runs in the window's days (lint, tests, builds at every commit): two and a half
    pages of runs and one page of artifacts; the per-candidate lookups it replaces cost
    about four requests a candidate."""
    for i, sha in enumerate(COMMITS):
        world.build(sha, OLD + (JUMP if i >= 5 else 0))
        for n in range(29):
            world.build(sha, None, workflow=f"lint-{n}")
    for _ in range(250 - 8 * 30):
        world.build("f" * 40, None, workflow="other")
    before = _api(world.fake)
    found = world.read()
    assert found.runs_listed == 250
    assert found.requests == _api(world.fake) - before == 3 + 1
    assert len(found.points) == 8

    before = _api(world.fake)
    refs = [SuspectRef(sha, ((BASE_SHA, *COMMITS)[i],)) for i, sha in enumerate(COMMITS)]
    verify_candidates(
        world.port(), refs, variant="cuda12_8", artifact=ARTIFACT, jump_bytes=JUMP,
        options=BuildEvidenceOptions(max_requests=None),
    )  # fmt: skip
    assert _api(world.fake) - before > 4 * 3  # the old way: runs + artifacts per commit


def test_builds_created_outside_the_range_are_not_listed(world: World) -> None:
    world.build(COMMITS[4], OLD + JUMP, created="2025-09-01T00:00:00Z")
    assert world.read().points == []


def test_a_configured_build_workflow_is_listed_by_file_and_its_failures_said(
    world: World,
) -> None:
    run = world.build(COMMITS[3], None, conclusion="failure", workflow="build")
    world.build(COMMITS[2], OLD, workflow="build")
    world.build(COMMITS[5], None, conclusion="failure", workflow="lint")
    file = world.repo.workflows[0].file_name
    found = world.read(BuildEvidenceOptions(workflows=(file,)))
    assert [(p.sha, p.conclusion) for p in found.points if not p.measured] == [
        (COMMITS[3], "failure")
    ]
    assert found.points[-1].run_id == run.id or any(p.run_id == run.id for p in found.points)
    assert found.requests == 2  # one page of runs, one of artifacts


def test_a_dip_below_the_old_size_keeps_the_nightlies_as_the_ends() -> None:
    """A commit that shrank the wheel while the night grew is CLEARED, not a reason to stop
    comparing with the nightlies; builds 45 MB off both nights are another configuration."""
    from wheel_size.regressions.builds.window import comparable

    dip = [BuildPoint(COMMITS[0], OLD - int(0.4 * MB), "success")]
    assert comparable(dip, OLD, OLD + 3 * MB, configured_noise_band(3 * MB, OPTIONS))
    far = [BuildPoint(COMMITS[0], OLD + 45 * MB, "success")]
    assert not comparable(far, OLD, OLD + 3 * MB, configured_noise_band(3 * MB, OPTIONS))


def test_a_workflow_given_by_name_filters_the_every_workflow_listing(world: World) -> None:
    world.build(COMMITS[2], OLD, workflow="linux-binary-manywheel")
    world.build(COMMITS[3], None, conclusion="failure", workflow="lint")
    found = world.read(BuildEvidenceOptions(workflows=("linux-binary-manywheel",)))
    assert [p.sha for p in found.points] == [COMMITS[2]]  # the lint failure is not a build
    assert [r.path for r in world.fake.requests if "/runs" in r.path][-1].endswith("/actions/runs")


def test_the_variants_of_one_night_list_the_windows_runs_once(world: World) -> None:
    from wheel_size.regressions.builds.attach import _SharedRuns

    world.build(COMMITS[2], OLD)
    shared = _SharedRuns(world.port())
    before = _api(world.fake)
    first = shared.runs_created(None, "2025-10-09..2025-10-14", None, 5)
    again = shared.runs_created(None, "2025-10-09..2025-10-14", None, 5)
    assert _api(world.fake) - before == 1
    assert again.runs == first.runs and (first.requests, again.requests) == (1, 0)
