"""The causal lifecycle, the night-event grouping and the request budget, end to end:
PyGithub against the fake GitHub and a real git repository with reverts and re-lands."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from fakegithub import FakeGitHub
from regression_world import Change, World, build_world, points
from wheel_size.github.client import RetryPolicy, connect
from wheel_size.github.port import PyGithubPort, PyGithubRepository
from wheel_size.regressions.events import Thresholds
from wheel_size.regressions.issues.alerts import AlertSettings, alert_night
from wheel_size.regressions.issues.sync import IssueCache, IssueSettings, SyncResult
from wheel_size.series import SizePoint

FAST = RetryPolicy(total=4, backoff=0.0, max_wait=5.0, secondary_wait=0.1, between_writes=0.0)
REPO = "pytorch/pytorch"


def make_world(tmp_path: Path) -> World:
    changes = [Change(f"base {i}", {"README.md": f"{i}\n"}) for i in range(3)]
    changes += [
        Change("Add Half reduce kernels (#101)", {"aten/src/ATen/native/cuda/R.cuh": "k\n"}),  # 3
        Change("Docs (#102)", {"docs/a.md": "a\n"}),  # 4
        Change(
            'Revert "Add Half reduce kernels (#101)"\n\nReverted '
            "https://github.com/pytorch/pytorch/pull/101 on behalf of someone",
            removed=("aten/src/ATen/native/cuda/R.cuh",),
        ),  # 5
        Change("Remove bundled libfoo (#200)", {"tools/build.py": "x\n"}),  # 6
        Change(
            "Reland Add Half reduce kernels (#101)\n\nOriginally #101.",
            {"aten/src/ATen/native/cuda/R.cuh": "k2\n"},
        ),  # 7
    ]
    nights = [
        ("2025-10-10", 2, None),
        ("2025-10-11", 4, None),
        ("2025-10-12", 4, None),
        ("2025-10-13", 5, None),
        ("2025-10-14", 6, None),
        ("2025-10-15", 7, None),
    ]
    return build_world(tmp_path / "git", changes, nights)


def repo_for(fake: FakeGitHub, w: World) -> PyGithubRepository:
    fake.add_repo(REPO, git_dir=w.path)
    return PyGithubPort(connect(fake.token, fake.url, retry=FAST)).repository(REPO)


def sizes(
    w: World, cuda: dict[str, float], **others: dict[str, float]
) -> dict[str, list[SizePoint]]:
    out = {"cuda12_8": points("cuda12_8", cuda, w)}
    out.update({v: points(v, s, w) for v, s in others.items()})
    return out


def cfg(**issue: object) -> AlertSettings:
    return AlertSettings(
        thresholds=Thresholds(mb=1.0),
        creep=None,
        issues=IssueSettings(**issue),  # type: ignore[arg-type]
    )


def night(repo: PyGithubRepository, s: dict[str, list[SizePoint]], day: str, c: AlertSettings,
          variants: tuple[str, ...] = ("cuda12_8",), **kw: object) -> SyncResult:  # fmt: skip
    return alert_night(repo, repo, s, dt.date.fromisoformat(day), list(variants), c, **kw)  # type: ignore[arg-type]


OCT = {"2025-10-10": 855.3, "2025-10-11": 859.6, "2025-10-12": 859.7}


def test_a_revert_of_a_listed_candidate_is_a_rollback_and_closes(
    tmp_path: Path, fake_github: FakeGitHub
) -> None:
    w = make_world(tmp_path)
    repo = repo_for(fake_github, w)
    c = cfg(close_on_rollback=True)
    s = sizes(w, {**OCT, "2025-10-13": 855.4})
    number = night(repo, s, "2025-10-11", c).created[0]
    stored = fake_github.repo(REPO).issue(number)
    assert stored is not None
    assert ":101" in (stored.body or "").splitlines()[1]  # the candidates marker names PR 101
    assert night(repo, s, "2025-10-12", c).updated == []
    rolled = night(repo, s, "2025-10-13", c)
    assert rolled.updated == [number]
    text = stored.comments[-1].body or ""
    assert "**Rolled back**" in text and "reverts the listed candidate" in text
    assert stored.state == "closed"


def test_an_unrelated_drop_says_nothing_on_the_issue(
    tmp_path: Path, fake_github: FakeGitHub
) -> None:
    """The January case: -29.7 MB from an unrelated removal, weeks after a +4.3 MB jump:
    another event's news, not a follow-up (issue 18: only the issue's own change)."""
    w = make_world(tmp_path)
    repo = repo_for(fake_github, w)
    c = cfg(close_on_rollback=True)
    # The revert lands on Oct 13 but the size does not move; Oct 14 an unrelated -29.7 MB.
    s = sizes(w, {**OCT, "2025-10-13": 859.7, "2025-10-14": 830.0})
    number = night(repo, s, "2025-10-11", c).created[0]
    stored = fake_github.repo(REPO).issue(number)
    assert stored is not None
    assert night(repo, s, "2025-10-13", c).updated == []
    offset = night(repo, s, "2025-10-14", c)
    assert offset.updated == [] and offset.created == []  # drops open no issue by default
    assert stored.comments == [] and stored.state == "open"


def test_back_without_a_revert_is_told_once_and_never_closes(
    tmp_path: Path, fake_github: FakeGitHub
) -> None:
    """Back at the pre-event level through an unrelated commit, then wobbling at the
    tolerance edge: one comment (with the run link), the issue stays open."""
    w = make_world(tmp_path)
    repo = repo_for(fake_github, w)
    c = cfg(close_on_rollback=True)
    s = sizes(w, {**OCT, "2025-10-13": 859.7, "2025-10-14": 856.2, "2025-10-15": 856.5})
    number = night(repo, s, "2025-10-11", c).created[0]
    stored = fake_github.repo(REPO).issue(number)
    assert stored is not None
    assert night(repo, s, "2025-10-14", c).updated == [number]
    text = stored.comments[-1].body or ""
    assert "Back without a revert" in text and "2025-10-14" in text
    assert "/actions/runs/" in text  # links the run of the night it came back
    assert "Rolled back" not in text and stored.state == "open"
    s = sizes(w, {**OCT, "2025-10-13": 859.7, "2025-10-14": 856.2, "2025-10-15": 856.5})
    s["cuda12_8"].append(points("cuda12_8", {"2025-10-16": 856.2}, w, with_base=False)[0])
    for day in ("2025-10-15", "2025-10-16"):  # out of tolerance and back in: no flapping
        assert night(repo, s, day, c).updated == []
    assert len(stored.comments) == 1


def test_a_reland_of_a_listed_candidate_is_grew_again_not_a_new_issue(
    tmp_path: Path, fake_github: FakeGitHub
) -> None:
    w = make_world(tmp_path)
    repo = repo_for(fake_github, w)
    c = cfg()
    s = sizes(
        w,
        {**OCT, "2025-10-13": 855.4, "2025-10-14": 855.4, "2025-10-15": 859.7},
    )
    number = night(repo, s, "2025-10-11", c).created[0]
    night(repo, s, "2025-10-13", c)  # rolled back (left open: close-on-rollback is off)
    again = night(repo, s, "2025-10-15", c)
    assert again.created == [] and again.updated == [number]
    stored = fake_github.repo(REPO).issue(number)
    assert stored is not None
    assert "**Grew again**" in (stored.comments[-1].body or "")
    assert "re-lands the listed candidate" in (stored.comments[-1].body or "")
    assert len(fake_github.repo(REPO).issues) == 1


def test_a_crossing_without_a_reland_is_its_own_event(
    tmp_path: Path, fake_github: FakeGitHub
) -> None:
    w = make_world(tmp_path)
    repo = repo_for(fake_github, w)
    c = cfg()
    # Oct 14 grows +3 MB through "Remove bundled libfoo": no link to the Oct 11 issue.
    s = sizes(w, {**OCT, "2025-10-13": 859.7, "2025-10-14": 862.7})
    first = night(repo, s, "2025-10-11", c).created[0]
    second = night(repo, s, "2025-10-14", c)
    assert len(second.created) == 1 and second.updated == []
    older = fake_github.repo(REPO).issue(first)
    assert older is not None and older.comments == []


def test_a_variant_crossing_later_the_same_night_joins_the_issue(
    tmp_path: Path, fake_github: FakeGitHub
) -> None:
    w = make_world(tmp_path)
    repo = repo_for(fake_github, w)
    c = cfg()
    early = sizes(w, OCT, cpu={"2025-10-10": 175.0})  # cpu's run of Oct 11 not in yet
    watched = ("cuda12_8", "cpu")
    number = night(repo, early, "2025-10-11", c, watched).created[0]
    late = sizes(w, OCT, cpu={"2025-10-10": 175.0, "2025-10-11": 176.5})
    joined = night(repo, late, "2025-10-11", c, watched)
    assert joined.created == [] and joined.updated == [number]
    # Both variants link to the one issue (the step summary's headline uses this).
    assert joined.events == {"jump/cuda12_8/2025-10-11": number, "jump/cpu/2025-10-11": number}
    issues = fake_github.repo(REPO).issues
    assert len(issues) == 1
    assert issues[0].title == "Wheel size: cuda12_8 +4.3 MB, cpu +1.5 MB on 2025-10-11"
    body = issues[0].body or ""
    assert any(
        line.startswith("<!-- wheel-size-action:event=jump/cpu/2025-10-11")
        for line in body.splitlines()[:3]
    )
    assert "Joined later the same night: `cpu` +1.5 MB" in body
    # And a re-run of the night finds both variants in it: no request but the listing.
    start = len(fake_github.requests)
    assert night(repo, late, "2025-10-11", c, watched).updated == []
    assert [r.path for r in fake_github.requests[start:]] == [f"/repos/{REPO}/issues"]


def test_drop_issues_are_off_by_default_and_say_shrank(
    tmp_path: Path, fake_github: FakeGitHub
) -> None:
    w = make_world(tmp_path)
    repo = repo_for(fake_github, w)
    s = sizes(w, {"2025-10-13": 859.7, "2025-10-14": 830.0})
    assert night(repo, s, "2025-10-14", cfg()).created == []
    on = AlertSettings(thresholds=Thresholds(mb=1.0), creep=None, include_drops=True)
    made = night(repo, s, "2025-10-14", on)
    issue = fake_github.repo(REPO).issue(made.created[0])
    assert issue is not None
    assert issue.title == "Wheel size: cuda12_8 -29.7 MB on 2025-10-14"
    assert "shrank by 29.7 MB" in (issue.body or "")
    assert "grew by -" not in (issue.body or "") and "grew by −" not in (issue.body or "")


def test_requests_identical_rerun_and_quiet_nights(tmp_path: Path, fake_github: FakeGitHub) -> None:
    """Issue #12 item 6: an identical re-run costs <= 10 requests; a quiet night with N
    open issues costs <= 5 (the listing; no comment reads); the listing is read once per
    run however many nights the run covers."""
    w = make_world(tmp_path)
    repo = repo_for(fake_github, w)
    c = cfg()
    s = sizes(
        w,
        {**OCT, "2025-10-13": 859.8, "2025-10-14": 862.9, "2025-10-15": 862.9},
    )
    night(repo, s, "2025-10-11", c)
    night(repo, s, "2025-10-14", c)
    assert len(fake_github.repo(REPO).issues) == 2
    start = len(fake_github.requests)
    night(repo, s, "2025-10-14", c)  # identical re-run
    assert len(fake_github.requests) - start <= 10
    start = len(fake_github.requests)
    night(repo, s, "2025-10-15", c)  # quiet night, two open issues
    quiet = fake_github.requests[start:]
    assert len(quiet) <= 5 and not any("/comments" in r.path for r in quiet)
    # A run over five nights with one cache lists the issues once.
    shared = IssueCache()
    start = len(fake_github.requests)
    for day in ("2025-10-11", "2025-10-12", "2025-10-13", "2025-10-14", "2025-10-15"):
        night(repo, s, day, c, issue_cache=shared)
    listings = [r for r in fake_github.requests[start:] if r.path == f"/repos/{REPO}/issues"]
    assert len(listings) == 1
    assert len(fake_github.requests) - start <= 10
