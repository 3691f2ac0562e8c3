"""Per-commit build evidence through PyGithub against the fake GitHub: every status from
real-shaped runs, artifacts, check runs and job logs; every bad input keeps LIKELY with its
reason; the request count stays within the documented bound."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

import pytest

from fakegithub import FakeGitHub, Repo, Run
from wheel_size.github.checks import GitHubBuilds
from wheel_size.github.client import RetryPolicy, connect
from wheel_size.regressions.builds.evidence import (
    BuildCache,
    BuildEvidenceOptions,
    BuildVerdict,
    SuspectRef,
    request_bound,
    verify_candidates,
)
from wheel_size.regressions.ranking.evidence import CLEARED, CONFIRMED, LIKELY, NOT_CONFIRMED

MB = 1 << 20
FAST = RetryPolicy(total=0, backoff=0.0, between_writes=0.0, timeout=10)
ARTIFACT = "manywheel-py3_12-cuda12_8"
WHEEL = "torch-2.10.0.dev20251011+cu128-cp312-cp312-manylinux_2_28_x86_64.whl"
BASE_SIZE = 912_345_678
JUMP = 4 * MB
PARENT, SUSPECT, OTHER = "1" * 40, "2" * 40, "3" * 40
TS = "2025-10-11T07:42:13.1234567Z "


def ls_line(size: int) -> str:
    return f"{TS}-rw-r--r-- 1 root root {size} Oct 11 07:42 /artifacts/{WHEEL}\n"


@dataclass
class World:
    fake: FakeGitHub
    repo: Repo

    def run_at(self, sha: str, workflow: str = "build-wheels") -> Run:
        found = [w for w in self.repo.workflows if w.name == workflow]
        wf = found[0] if found else self.repo.add_workflow(name=workflow)
        return wf.add_run(head_sha=sha, head_branch="main", message="commit", event="push")

    def verify(
        self,
        refs: list[SuspectRef] | None = None,
        jump: int = JUMP,
        cache: BuildCache | None = None,
        **options: object,
    ) -> dict[str, BuildVerdict]:
        gh = connect(self.fake.token, self.fake.url, retry=FAST)
        template = options.pop("log_url_template", None)
        port = GitHubBuilds(gh, "pytorch/pytorch", log_url_template=template)  # type: ignore[arg-type]
        opts = dataclasses.replace(
            BuildEvidenceOptions(log_url_template=template),  # type: ignore[arg-type]
            **options,  # type: ignore[arg-type]
        )
        return verify_candidates(
            port,
            refs or [SuspectRef(SUSPECT, (PARENT,))],
            variant="cuda12_8",
            artifact=ARTIFACT,
            jump_bytes=jump,
            options=opts,
            cache=cache,
        )


@pytest.fixture
def world(fake_github: FakeGitHub) -> World:
    repo = fake_github.add_repo("pytorch/pytorch")
    repo.add_commit(PARENT, "parent", files=["a.cpp"])
    repo.add_commit(SUSPECT, "Use -O3 (#164894)", files=["CMakeLists.txt"], parents=[PARENT])
    repo.add_commit(OTHER, "docs", files=["README.md"], parents=[SUSPECT])
    return World(fake_github, repo)


def with_artifacts(world: World, parent: int, suspect: int) -> None:
    world.run_at(PARENT).add_artifact(ARTIFACT, size_in_bytes=parent)
    world.run_at(SUSPECT).add_artifact(ARTIFACT, size_in_bytes=suspect)


# -- the statuses -----------------------------------------------------------------------------


def test_confirmed_from_the_artifacts_of_runs_at_both_commits(world: World) -> None:
    with_artifacts(world, BASE_SIZE, BASE_SIZE + int(4.1 * MB))
    verdict = world.verify()[SUSPECT]
    assert verdict.status == CONFIRMED, verdict.reason
    assert verdict.delta_bytes == int(4.1 * MB)
    assert verdict.suspect is not None and verdict.base is not None
    run = world.repo.workflows[0].runs[1]
    assert verdict.suspect.url == f"https://github.com/pytorch/pytorch/actions/runs/{run.id}"
    assert f"run {run.id}" in verdict.reason and "+4.10 MB" in verdict.reason
    assert _api_requests(world.fake) == 4  # 2 run listings, 2 artifact listings


@pytest.mark.parametrize(
    ("delta", "why"),
    [(9_000, "did not change"), (int(0.6 * MB), "far less than the jump")],
)
def test_not_confirmed_when_the_build_shows_negligible_or_no_impact(
    world: World, delta: int, why: str
) -> None:
    """The seed: NOT CONFIRMED = build logs show negligible or no impact."""
    with_artifacts(world, BASE_SIZE, BASE_SIZE + delta)
    verdict = world.verify()[SUSPECT]
    assert verdict.status == NOT_CONFIRMED, verdict.reason
    assert why in verdict.reason


def test_cleared_when_the_build_disproves_it(world: World) -> None:
    """The seed: CLEARED = build logs disprove the hypothesis (it moved the other way)."""
    with_artifacts(world, BASE_SIZE, BASE_SIZE - 2 * MB)
    verdict = world.verify()[SUSPECT]
    assert verdict.status == CLEARED, verdict.reason
    assert "the other way" in verdict.reason


def test_drop_confirmed_by_a_shrinking_commit(world: World) -> None:
    with_artifacts(world, BASE_SIZE, BASE_SIZE - 29 * MB)
    verdict = world.verify(jump=-int(29.7 * MB))[SUSPECT]
    assert verdict.status == CONFIRMED, verdict.reason


def test_confirmed_from_job_logs_through_the_check_runs_api(world: World) -> None:
    """No artifact at either commit: the manywheel job's log prints `ls -l` of the wheel."""
    for sha, size in ((PARENT, BASE_SIZE), (SUSPECT, BASE_SIZE + int(3.9 * MB))):
        run = world.run_at(sha, "linux-binary-manywheel")
        run.add_job("manywheel-py3_12-cpu-build / build", "Wheel size: 170.0 MB\n")
        log = f"{TS}Building wheel\n" + ls_line(size) + f"{TS}done\n"
        run.add_job("manywheel-py3_12-cuda12_8-build / build", log)
    verdict = world.verify()[SUSPECT]
    assert verdict.status == CONFIRMED, verdict.reason
    assert verdict.suspect is not None and verdict.suspect.kind == "wheel"
    assert "/job/" in verdict.suspect.url and WHEEL in (verdict.suspect.line or "")
    fake = world.fake
    signed = [r for r in fake.requests if r.path.startswith("/_joblogs/")]
    assert len(signed) == 2
    assert all("authorization" not in r.headers for r in signed)
    # The cpu job's log was never read: its name does not name the variant.
    assert fake.count("GET", r"/actions/jobs/\d+/logs$") == 2


def test_confirmed_from_a_log_mirror(world: World) -> None:
    """PyTorch's style: check runs of another app whose logs live on a mirror."""
    for sha, size in ((PARENT, BASE_SIZE), (SUSPECT, BASE_SIZE + JUMP)):
        world.repo.add_check_run(
            sha,
            "linux-binary-manywheel / manywheel-py3_12-cuda12_8-build",
            f"Created wheel for torch: filename={WHEEL} size={size} sha256=ab12\n",
            app="pytorch-ci",
        )
    template = f"{world.fake.url}/_mirror/log/{{job_id}}"
    verdict = world.verify(log_url_template=template)[SUSPECT]
    assert verdict.status == CONFIRMED, verdict.reason
    mirror = [r for r in world.fake.requests if r.path.startswith("/_mirror/")]
    assert len(mirror) == 2 and all("authorization" not in r.headers for r in mirror)
    assert world.fake.count("GET", r"/actions/jobs/") == 0


def test_workflow_patterns_choose_jobs_that_do_not_name_the_variant(world: World) -> None:
    for sha, size in ((PARENT, BASE_SIZE), (SUSPECT, BASE_SIZE + JUMP)):
        run = world.run_at(sha, "wheels")
        run.add_job("package", f"{TS}Wheel size: {size / MB:.2f} MB\n")
    assert world.verify()[SUSPECT].status == LIKELY
    world.fake.requests.clear()
    verdict = world.verify(workflows=("package",), cache=BuildCache())[SUSPECT]
    assert verdict.status == CONFIRMED, verdict.reason


# -- bad input: LIKELY with the reason, nothing raised ------------------------------------------


def test_no_build_at_the_commit(world: World) -> None:
    verdict = world.verify()[SUSPECT]
    assert verdict.status == LIKELY
    assert verdict.reason == f"no build of cuda12_8 at {SUSPECT[:12]}"


def test_measured_at_the_suspect_only(world: World) -> None:
    world.run_at(SUSPECT).add_artifact(ARTIFACT, size_in_bytes=BASE_SIZE)
    verdict = world.verify()[SUSPECT]
    assert verdict.status == LIKELY
    assert f"not at its parent: no build of cuda12_8 at {PARENT[:12]}" in verdict.reason


def test_check_runs_forbidden_falls_back_to_the_jobs_of_runs(world: World) -> None:
    for sha, size in ((PARENT, BASE_SIZE), (SUSPECT, BASE_SIZE + JUMP)):
        world.run_at(sha, "linux-binary-manywheel").add_job(
            "manywheel-py3_12-cuda12_8-build / build", ls_line(size)
        )
    world.fake.set_permissions({"actions": "read", "contents": "read"})
    verdict = world.verify()[SUSPECT]
    assert verdict.status == CONFIRMED, verdict.reason
    # Refused once, not asked again for the parent.
    assert world.fake.count("GET", r"/check-runs$") == 1


def test_check_runs_forbidden_and_no_runs(world: World) -> None:
    world.fake.set_permissions({"actions": "read", "contents": "read"})
    verdict = world.verify()[SUSPECT]
    assert verdict.status == LIKELY
    assert "check-runs API forbidden (403); the token needs `checks: read`" in verdict.reason


def test_actions_api_disabled(world: World) -> None:
    world.fake.fail("GET", r"/actions/runs$", 403, times=None,
                    body={"message": "Actions is disabled for this repository."})  # fmt: skip
    verdict = world.verify()[SUSPECT]
    assert verdict.status == LIKELY
    assert verdict.reason == (
        f"no build of cuda12_8 at {SUSPECT[:12]} (workflow-runs API forbidden (403))"
    )


def test_external_check_run_without_a_mirror(world: World) -> None:
    """Another app's check run has no log behind the Actions API (404)."""
    world.repo.add_check_run(SUSPECT, "manywheel-py3_12-cuda12_8-build", ls_line(1))
    verdict = world.verify()[SUSPECT]
    assert verdict.status == LIKELY
    assert verdict.reason == "job 'manywheel-py3_12-cuda12_8-build': log not found (404)"


@pytest.mark.parametrize(
    ("job_kwargs", "reason"),
    [
        ({"log_state": "gone"}, "log gone (410)"),
        ({"log_state": "missing"}, "log not found (404)"),
        ({"log": "no sizes here\n" * 50}, "the log has no wheel size line"),
        ({"log": b"\x00\x01\x02" * 1000}, "log unreadable (not text)"),
        ({"log": "x" * 300_000}, "log too large (300,000 bytes; limit 65,536)"),
        ({"log": "y" * 300_000, "stream": True}, "log too large (over the limit of 65,536)"),
    ],
)
def test_bad_logs_keep_likely_with_the_reason(
    world: World, job_kwargs: dict[str, object], reason: str
) -> None:
    stream = bool(job_kwargs.pop("stream", False))
    kwargs: dict[str, Any] = {"log": ls_line(BASE_SIZE), **job_kwargs}
    for sha in (PARENT, SUSPECT):
        job = world.run_at(sha).add_job("manywheel-py3_12-cuda12_8-build / build", **kwargs)
        job.stream = stream
    gh = connect(world.fake.token, world.fake.url, retry=FAST)
    port = GitHubBuilds(gh, "pytorch/pytorch", max_log_bytes=65_536)
    verdict = verify_candidates(
        port, [SuspectRef(SUSPECT, (PARENT,))], variant="cuda12_8", artifact=ARTIFACT,
        jump_bytes=JUMP, options=BuildEvidenceOptions(),
    )[SUSPECT]  # fmt: skip
    assert verdict.status == LIKELY
    assert reason in verdict.reason, verdict.reason


def test_server_errors_and_rate_limits_keep_likely(world: World) -> None:
    with_artifacts(world, BASE_SIZE, BASE_SIZE + JUMP)
    world.fake.fail("GET", r"/actions/runs$", 502, times=None)
    world.fake.fail_primary_rate_limit("GET", r"/check-runs$", times=None, reset_in=3600)
    verdict = world.verify()[SUSPECT]
    assert verdict.status == LIKELY
    assert "rate limited" in verdict.reason, verdict.reason


def test_a_mirror_without_the_log(world: World) -> None:
    world.repo.add_check_run(SUSPECT, "manywheel-py3_12-cuda12_8-build", "x", mirrored=False)
    template = f"{world.fake.url}/_mirror/log/{{job_id}}"
    verdict = world.verify(log_url_template=template)[SUSPECT]
    assert verdict.status == LIKELY and "log gone (404)" in verdict.reason


def test_unreachable_mirror(world: World) -> None:
    world.repo.add_check_run(SUSPECT, "manywheel-py3_12-cuda12_8-build", "x")
    verdict = world.verify(log_url_template="http://127.0.0.1:9/{job_id}")[SUSPECT]
    assert verdict.status == LIKELY and "log unreadable (ConnectionError)" in verdict.reason


# -- requests -----------------------------------------------------------------------------------


def _api_requests(fake: FakeGitHub) -> int:
    return sum(1 for r in fake.requests if not r.path.startswith(("/_joblogs/", "/_mirror/")))


def test_request_count_within_the_documented_bound(world: World) -> None:
    """Three candidates without parents known, every commit with runs, check runs and logs
    that say nothing: the most expensive shape. The count stays within request_bound."""
    shas = [f"{i:x}" * 40 for i in range(4, 8)]
    for i, sha in enumerate(shas):
        world.repo.add_commit(sha, f"c{i}", parents=[shas[i - 1]] if i else [PARENT])
        for name in ("trunk", "pull", "linux-binary-manywheel"):
            run = world.run_at(sha, name)
            run.add_artifact("other", size_in_bytes=1)
            run.add_job("manywheel-py3_12-cuda12_8-build / build", "nothing\n")
            run.add_job("manywheel-py3_12-cuda12_8-test / test", "nothing\n")
    options = BuildEvidenceOptions(top=3, max_requests=None)
    refs = [SuspectRef(sha) for sha in reversed(shas[1:])]
    cache = BuildCache()
    verdicts = world.verify(refs, cache=cache, top=3, max_requests=None)
    assert all(v.status == LIKELY for v in verdicts.values())
    spent = _api_requests(world.fake)
    assert spent <= cache.requests <= request_bound(options) == 3 * (1 + 2 * (1 + 4 + 2 + 2))
    # 3 parent lookups, then 3 commits x (1 run list + 2 artifact lists + 1 check-run page
    # + 1 log: the build job's; the test job naming the variant is never read); a parent is
    # not measured once its candidate could not be, and shared commits are asked once.
    assert spent == 3 + 3 * 5
    assert not any("test" in r.path for r in world.fake.requests if "/logs" in r.path)
    # A second variant of the same night costs nothing more.
    world.verify(refs, cache=cache)
    assert _api_requests(world.fake) == spent


def test_request_budget_caps_an_event(world: World) -> None:
    """The suspect explains a third of the jump: the lookups go on down the ranking until
    the budget is spent; the candidate that hit it says so."""
    with_artifacts(world, BASE_SIZE, BASE_SIZE + JUMP)
    refs = [SuspectRef(SUSPECT, (PARENT,)), SuspectRef(OTHER, (SUSPECT,))]
    verdicts = world.verify(refs, jump=3 * JUMP, max_requests=5)
    assert verdicts[SUSPECT].status == CONFIRMED
    assert verdicts[OTHER].status == LIKELY
    assert "request budget of 5 per event is spent" in verdicts[OTHER].reason
    assert _api_requests(world.fake) <= 5


def test_top_n_only_and_off(world: World) -> None:
    refs = [SuspectRef(SUSPECT, (PARENT,)), SuspectRef(OTHER, (SUSPECT,))]
    assert list(world.verify(refs, top=1)) == [SUSPECT]
    assert world.verify(refs, enabled=False) == {}


# -- Method A finds the builds that exist (issue 18) --------------------------------------------


def test_expired_artifacts_still_count_by_their_listed_size(world: World) -> None:
    """Artifacts older than their retention cannot be downloaded, but the API still lists
    their size_in_bytes: that is the measurement."""
    world.run_at(PARENT).add_artifact(ARTIFACT, size_in_bytes=BASE_SIZE, expired=True)
    world.run_at(SUSPECT).add_artifact(ARTIFACT, size_in_bytes=BASE_SIZE + JUMP, expired=True)
    verdict = world.verify()[SUSPECT]
    assert verdict.status == CONFIRMED, verdict.reason
    assert verdict.delta_bytes == JUMP and "expired" in verdict.reason
    assert world.fake.count("GET", r"/zip$") == 0  # nothing downloaded


def test_the_build_job_is_chosen_by_the_wheel_it_produces_not_a_test_job(world: World) -> None:
    """CI test jobs name the variant too (linux-jammy-cuda12.8-… / test) and come first;
    their logs are never read, so the log budget reaches the manywheel build job."""
    for sha, size in ((PARENT, BASE_SIZE), (SUSPECT, BASE_SIZE + JUMP)):
        run = world.run_at(sha, "pull")
        for shard in (1, 2, 3):
            run.add_job(
                f"linux-jammy-cuda12.8-py3.10-gcc11 / test (default, {shard}, 5)",
                ls_line(BASE_SIZE + 7 * MB),  # a test job listing some other wheel
            )
        build = world.run_at(sha, "linux-binary-manywheel")
        build.add_job("manywheel-py3_12-cuda12_8-build / build", ls_line(size))
        build.add_job("manywheel-py3_12-cuda12_8-test / test", ls_line(size + 9 * MB))
    verdict = world.verify()[SUSPECT]
    assert verdict.status == CONFIRMED, verdict.reason
    assert verdict.suspect is not None
    assert verdict.suspect.source == "log of job manywheel-py3_12-cuda12_8-build / build"
    assert verdict.delta_bytes == JUMP
    assert world.fake.count("GET", r"/actions/jobs/\d+/logs$") == 2  # one per commit


def test_the_job_pattern_is_configurable(world: World) -> None:
    for sha, size in ((PARENT, BASE_SIZE), (SUSPECT, BASE_SIZE + JUMP)):
        world.run_at(sha, "wheels").add_job("wheel cuda12_8 py3_12", ls_line(size))
    assert world.verify()[SUSPECT].status == LIKELY  # the default pattern names no such job
    world.fake.requests.clear()
    verdict = world.verify(job_pattern="wheel {variant} {python}", cache=BuildCache())[SUSPECT]
    assert verdict.status == CONFIRMED, verdict.reason


def _chain(world: World, n: int) -> list[str]:
    shas = [f"{i:x}" * 40 for i in range(4, 4 + n)]
    for i, sha in enumerate(shas):
        world.repo.add_commit(sha, f"c{i}", parents=[shas[i - 1]] if i else [OTHER])
    return shas


def test_lookups_go_down_the_ranking_until_a_build_accounts_for_the_night(world: World) -> None:
    """Not a fixed top 3: the culprit ranked 5th is measured; the 6th is never asked."""
    shas = _chain(world, 6)
    parent_of = {sha: (shas[i - 1] if i else OTHER) for i, sha in enumerate(shas)}
    for sha in shas[:4]:  # measured, 0 MB each
        world.run_at(sha).add_artifact(ARTIFACT, size_in_bytes=BASE_SIZE)
        world.run_at(parent_of[sha]).add_artifact(ARTIFACT, size_in_bytes=BASE_SIZE)
    world.run_at(shas[4]).add_artifact(ARTIFACT, size_in_bytes=BASE_SIZE + JUMP)
    refs = [SuspectRef(sha, (parent_of[sha],)) for sha in shas]
    verdicts = world.verify(refs)
    assert [verdicts[s].status for s in shas[:5]] == [NOT_CONFIRMED] * 4 + [CONFIRMED]
    assert shas[5] not in verdicts


def test_measured_builds_rerank_the_candidates(world: World) -> None:
    """A candidate measured at +0.00 MB drops below the unmeasured ones; a CONFIRMED one
    goes first, with the build's numbers as its first reason."""
    from wheel_size.regressions.builds.attach import rerank
    from wheel_size.regressions.investigation import Candidate
    from wheel_size.regressions.ranking.evidence import Status
    from wheel_size.regressions.ranking.rank import Ranked, Reason
    from wheel_size.regressions.window.commits import Commit

    shas = _chain(world, 3)
    parent_of = {sha: (shas[i - 1] if i else OTHER) for i, sha in enumerate(shas)}
    world.run_at(OTHER).add_artifact(ARTIFACT, size_in_bytes=BASE_SIZE)
    world.run_at(shas[0]).add_artifact(ARTIFACT, size_in_bytes=BASE_SIZE)  # +0.00 MB
    world.run_at(shas[1]).add_artifact(ARTIFACT, size_in_bytes=BASE_SIZE)
    world.run_at(shas[2]).add_artifact(ARTIFACT, size_in_bytes=BASE_SIZE + JUMP)
    # The ranking from the code put the +0 MB commit first and the culprit last.
    order = [shas[0], SUSPECT, shas[2]]
    refs = [SuspectRef(sha, (parent_of.get(sha, PARENT),)) for sha in order]
    verdicts = world.verify(refs)
    candidates = [
        Candidate(
            Ranked(
                Commit(sha, f"c {sha[:4]}"),
                ("cpp-code",),
                10.0 - i,
                rank=i + 1,
                reasons=(Reason("reach", 5.0, "can move CUDA"),),
            ),
            Status(None, "from the code"),
            None,
            None,
        )
        for i, sha in enumerate(order)
    ]
    reranked = rerank(candidates, verdicts)
    assert [c.classified.commit.sha for c in reranked] == [shas[2], SUSPECT, shas[0]]
    assert [c.classified.rank for c in reranked] == [1, 2, 3]
    first = reranked[0].classified
    assert isinstance(first, Ranked) and first.reasons[0].signal == "build"
    assert "+4.00 MB" in first.reasons[0].text
