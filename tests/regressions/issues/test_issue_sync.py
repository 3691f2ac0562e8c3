"""Regression issues end to end against the fake GitHub server and a real git repository."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from fakegithub import FakeGitHub
from regression_world import Change, World, build_world, points
from wheel_size.errors import GitHubError
from wheel_size.github.client import RetryPolicy, connect
from wheel_size.github.port import PyGithubPort, PyGithubRepository
from wheel_size.regressions.events import Thresholds
from wheel_size.regressions.issues.alerts import AlertSettings, alert_night
from wheel_size.regressions.issues.body import Reproduce
from wheel_size.regressions.issues.sync import IssueSettings, SyncResult
from wheel_size.render.safe_markdown import ZWJ
from wheel_size.series import SizePoint

FAST = RetryPolicy(total=4, backoff=0.0, max_wait=5.0, secondary_wait=0.1, between_writes=0.0)
NIGHT = dt.date(2025, 10, 11)
LABEL = "wheel-size-regression"


def make_world(tmp_path: Path) -> World:
    base = [Change(f"base {i}", {"README.md": f"{i}\n"}) for i in range(3)]
    window = [
        Change(
            "Add Half reduce kernels (#101)",
            {"aten/src/ATen/native/cuda/Reduce.cuh": "template <int N> struct R {};\n"},
        ),
        Change(
            "Docs: thanks @octocat, see #77 <!-- wheel-size-action:event=jump/cpu/2020-01-01 -->",
            {"docs/a.md": "a\n"},
        ),
        Change('Revert "base 1"\n\nThis reverts commit 0000000.', {"README.md": "r\n"}),
        Change("Bad idea (#103)", {"c10/core/bad.cpp": "int bad;\n"}),
        Change('Revert "Bad idea (#103)"', removed=("c10/core/bad.cpp",)),
        Change("Python helper (#104)", {"torch/helper.py": "x = 1\n"}),
    ]
    return build_world(
        tmp_path / "git", base + window, [("2025-10-10", 2, None), ("2025-10-11", 8, None)]
    )


def series(w: World, **overrides: dict[str, float]) -> dict[str, list[SizePoint]]:
    sizes = {
        "cuda12_8": {"2025-10-09": 855.2, "2025-10-10": 855.3, "2025-10-11": 859.6},
        "cuda12_6": {"2025-10-09": 790.0, "2025-10-10": 790.0, "2025-10-11": 794.0},
        "cpu": {"2025-10-09": 175.0, "2025-10-10": 175.0, "2025-10-11": 175.01},
    }
    for variant, extra in overrides.items():
        sizes[variant] = {**sizes[variant], **extra}
    return {v: points(v, s, w) for v, s in sizes.items()}


def repo_for(fake: FakeGitHub, w: World) -> PyGithubRepository:
    fake.add_repo("pytorch/pytorch", git_dir=w.path)
    return PyGithubPort(connect(fake.token, fake.url, retry=FAST)).repository("pytorch/pytorch")


def settings(**issue_kwargs: object) -> AlertSettings:
    return AlertSettings(
        thresholds=Thresholds(mb=1.0),
        creep=None,
        issues=IssueSettings(**issue_kwargs),  # type: ignore[arg-type]
    )


def reproduce(event: object) -> Reproduce:
    return Reproduce(("--repo", "pytorch/pytorch", "--date", "2025-10-11", "--variant", "cuda12_8"))


def run(
    fake: FakeGitHub,
    repo: PyGithubRepository,
    s: dict[str, list[SizePoint]],
    night: dt.date = NIGHT,
    cfg: AlertSettings | None = None,
) -> SyncResult:
    return alert_night(repo, repo, s, night, ["cuda12_8"], cfg or settings(), reproduce=reproduce)


def test_one_issue_with_ranked_candidates_and_rerun_creates_nothing(
    tmp_path: Path, fake_github: FakeGitHub
) -> None:
    w = make_world(tmp_path)
    repo = repo_for(fake_github, w)
    result = run(fake_github, repo, series(w))
    assert len(result.created) == 1
    issue = fake_github.repo("pytorch/pytorch").issue(result.created[0])
    assert issue is not None
    assert issue.title == "Wheel size: cuda12_8 +4.3 MB on 2025-10-11"
    assert LABEL in issue.label_names
    body = issue.body or ""
    assert body.startswith(
        "<!-- wheel-size-action:event=jump/cuda12_8/2025-10-11 before=2025-10-10:"
    )
    # Ranked: the CUDA kernel first, the docs last; the pair "Bad idea" + revert removed.
    table = [line for line in body.splitlines() if line.startswith("| ") and "](" in line]
    kernel = next(i for i, row in enumerate(table) if "Half reduce kernels" in row)
    docs = next(i for i, row in enumerate(table) if "Docs: thanks" in row)
    assert kernel < docs
    assert "LIKELY" in table[kernel] and table[docs].endswith("| — |")  # no build: no status
    assert "### Revert pairs removed" in body
    pairs = body.split("### Revert pairs removed", 1)[1]
    assert "Bad idea" in pairs
    # The revert of a commit before the window stays a candidate.
    assert 'Revert "base 1"' in body.split("### Revert pairs removed", 1)[0]
    # Neutralised: no ping, no back-reference, no forged marker.
    assert f"@{ZWJ}octocat" in body and "@octocat" not in body
    assert f"#{ZWJ}77" in body
    # Only our own leading markers: the event, the listed candidates, the notes' cause,
    # the run that opened it (issue 32).
    assert body.count("<!-- wheel-size-action:") == 4
    assert body.splitlines()[3].startswith("<!-- wheel-size-action:run=")
    assert body.splitlines()[1].startswith("<!-- wheel-size-action:candidates=")
    assert body.splitlines()[2].startswith("<!-- wheel-size-action:cause=")
    # PR links do not create back-references; cross-variant table and reading.
    assert "https://redirect.github.com/pytorch/pytorch/pull/101" in body
    assert "| cpu | +0.01 MB |" in body and "CPU wheel did not grow" in body
    assert "wheel-size investigate --repo pytorch/pytorch --date 2025-10-11" in body
    assert "```mermaid" in body

    posts = fake_github.count("POST")
    start = len(fake_github.requests)
    again = run(fake_github, repo, series(w))
    assert again.created == [] and again.unchanged == result.created
    assert fake_github.count("POST") == posts
    # One request: the issues listing (no per-issue or per-commit reads on a re-run).
    assert [r.path for r in fake_github.requests[start:]] == ["/repos/pytorch/pytorch/issues"]
    assert fake_github.count("PATCH") == 0
    assert len(fake_github.repo("pytorch/pytorch").issues) == 1


def test_a_pull_request_with_our_label_and_marker_is_not_the_issue(
    tmp_path: Path, fake_github: FakeGitHub
) -> None:
    w = make_world(tmp_path)
    repo = repo_for(fake_github, w)
    marker = (
        "<!-- wheel-size-action:event=jump/cuda12_8/2025-10-11 "
        "before=2025-10-10:1 after=2025-10-11:2 -->"
    )
    fake_github.repo("pytorch/pytorch").add_issue("PR", marker, [LABEL], pull_request=True)
    result = run(fake_github, repo, series(w))
    assert len(result.created) == 1 and result.unchanged == []
    assert result.created[0] != 1


def test_lost_answer_on_create_does_not_duplicate(tmp_path: Path, fake_github: FakeGitHub) -> None:
    w = make_world(tmp_path)
    repo = repo_for(fake_github, w)
    fake_github.fail("POST", r"/issues$", 502, times=1, after=True)
    result = run(fake_github, repo, series(w))
    stored = fake_github.repo("pytorch/pytorch").issues
    assert len(stored) == 1
    assert result.created == [stored[0].number]
    assert fake_github.count("POST", r"/issues$") == 1


def test_a_later_drop_without_a_revert_is_an_offset_and_never_closes(
    tmp_path: Path, fake_github: FakeGitHub
) -> None:
    w = make_world(tmp_path)
    repo = repo_for(fake_github, w)
    cfg = settings(close_on_rollback=True)
    first = run(fake_github, repo, series(w), cfg=cfg)
    number = first.created[0]
    stored = fake_github.repo("pytorch/pytorch").issue(number)
    assert stored is not None

    # Oct 12: same size (+0.1 MB): nothing to say, and no comment is even read.
    s = series(w, cuda12_8={"2025-10-12": 859.7})
    start = len(fake_github.requests)
    quiet = run(fake_github, repo, s, dt.date(2025, 10, 12), cfg)
    assert quiet.updated == [] and stored.comments == []
    assert not any("/comments" in r.path for r in fake_github.requests[start:])

    # Oct 13: back down, but nothing in the window reverts a listed candidate: "offset",
    # and the issue stays open although close-on-rollback is set.
    s = series(w, cuda12_8={"2025-10-12": 859.7, "2025-10-13": 855.4})
    offset = run(fake_github, repo, s, dt.date(2025, 10, 13), cfg)
    assert offset.updated == [number]
    assert len(stored.comments) == 1
    text = stored.comments[0].body or ""
    assert "Back without a revert" in text and "Rolled back" not in text
    assert stored.state == "open"
    # Re-running that night changes nothing.
    posts = fake_github.count("POST")
    assert run(fake_github, repo, s, dt.date(2025, 10, 13), cfg).updated == []
    assert fake_github.count("POST") == posts


def test_drift_is_never_grew_again(tmp_path: Path, fake_github: FakeGitHub) -> None:
    w = make_world(tmp_path)
    repo = repo_for(fake_github, w)
    number = run(fake_github, repo, series(w)).created[0]
    s = series(w, cuda12_8={"2025-10-12": 860.2, "2025-10-13": 860.9})
    assert run(fake_github, repo, s, dt.date(2025, 10, 12)).updated == []
    assert run(fake_github, repo, s, dt.date(2025, 10, 13)).updated == []  # +1.3 of drift
    stored = fake_github.repo("pytorch/pytorch").issue(number)
    assert stored is not None and stored.comments == [] and stored.state == "open"


def test_accepted_label_silences_the_event(tmp_path: Path, fake_github: FakeGitHub) -> None:
    w = make_world(tmp_path)
    repo = repo_for(fake_github, w)
    number = run(fake_github, repo, series(w)).created[0]
    stored = fake_github.repo("pytorch/pytorch").issue(number)
    assert stored is not None
    stored.labels.append(fake_github.repo("pytorch/pytorch").add_label("size-accepted"))
    s = series(w, cuda12_8={"2025-10-12": 855.3})  # rolled back: would comment
    result = run(fake_github, repo, s, dt.date(2025, 10, 12))
    assert result.silenced == [number] and result.updated == []
    assert stored.comments == []


def test_issues_disabled_is_one_clear_error(tmp_path: Path, fake_github: FakeGitHub) -> None:
    w = make_world(tmp_path)
    fake_github.add_repo("pytorch/pytorch", git_dir=w.path, has_issues=False)
    repo = PyGithubPort(connect(fake_github.token, fake_github.url, retry=FAST)).repository(
        "pytorch/pytorch"
    )
    with pytest.raises(GitHubError, match="issues are disabled in pytorch/pytorch"):
        run(fake_github, repo, series(w))


def test_token_without_issues_write_is_named(tmp_path: Path, fake_github: FakeGitHub) -> None:
    w = make_world(tmp_path)
    repo = repo_for(fake_github, w)
    fake_github.set_permissions({"contents": "read", "actions": "read", "issues": "read"})
    with pytest.raises(GitHubError, match=r"issues[:=] ?write") as info:
        run(fake_github, repo, series(w))
    assert "\n" not in str(info.value)
    assert fake_github.repo("pytorch/pytorch").issues == []


def test_variants_of_one_night_share_the_window(tmp_path: Path, fake_github: FakeGitHub) -> None:
    w = make_world(tmp_path)
    repo = repo_for(fake_github, w)
    result = alert_night(repo, repo, series(w), NIGHT, ["cuda12_8", "cuda12_6", "cpu"], settings())
    stored = fake_github.repo("pytorch/pytorch").issues
    # One alert per night event: both variants in one issue, one table, one candidate list.
    assert [i.title for i in stored] == [
        "Wheel size: cuda12_8 +4.3 MB, cuda12_6 +4.0 MB on 2025-10-11"
    ]
    assert len(result.created) == 1
    body = stored[0].body or ""
    markers = [line for line in body.splitlines() if line.startswith("<!-- wheel-size-action:")]
    assert [m.split()[1].split("=")[1] for m in markers[:2]] == [
        "jump/cuda12_8/2025-10-11",
        "jump/cuda12_6/2025-10-11",
    ]
    assert body.count("### Candidate commits") == 1
    assert "| **cuda12_6** | +4.00 MB |" in body and "| **cuda12_8** | +4.30 MB |" in body
    assert fake_github.count("GET", r"/compare/") == 1
    assert fake_github.count("GET", r"/commits/[0-9a-f]{40}$") == 4  # the kept candidates, once
    # One listing for the whole night, then one right before and one right after the
    # create (one run owns an event: a concurrent run's issue is seen, a duplicate closed).
    assert fake_github.count("GET", r"/issues$") == 3


def test_rate_limited_create_is_retried_once_refused(
    tmp_path: Path, fake_github: FakeGitHub
) -> None:
    w = make_world(tmp_path)
    repo = repo_for(fake_github, w)
    fake_github.fail_secondary_rate_limit("POST", r"/issues$", times=1, retry_after=0.1)
    result = run(fake_github, repo, series(w))
    assert len(fake_github.repo("pytorch/pytorch").issues) == 1
    assert len(result.created) == 1
    statuses = [
        r.status for r in fake_github.requests if r.method == "POST" and r.path.endswith("/issues")
    ]
    assert statuses == [403, 201]


def test_creep_gets_one_issue_and_later_nights_follow_it(
    tmp_path: Path, fake_github: FakeGitHub
) -> None:
    w = make_world(tmp_path)
    repo = repo_for(fake_github, w)
    start = dt.date(2025, 9, 20)
    sizes = {
        (start + dt.timedelta(days=i)).isoformat(): 850 + 0.4 * i for i in range(20)
    }  # +0.4 MB a night: never a jump, +5.6 MB in 14 days
    s = {"cuda12_8": points("cuda12_8", sizes, w)}
    cfg = AlertSettings(thresholds=Thresholds(mb=1.0), issues=IssueSettings())
    day14 = start + dt.timedelta(days=14)
    first = alert_night(repo, repo, s, day14, ["cuda12_8"], cfg)
    assert len(first.created) == 1
    issue = fake_github.repo("pytorch/pytorch").issues[0]
    assert issue.title == "Wheel size creep: cuda12_8 +5.6 MB from 2025-09-20 to 2025-10-04"
    assert "No single night crossed the threshold" in (issue.body or "")
    # Still creeping the next nights: no new issue; a comment once it grew 1 MB more.
    quiet = alert_night(repo, repo, s, day14 + dt.timedelta(days=1), ["cuda12_8"], cfg)
    assert quiet.created == [] and issue.comments == []
    later = alert_night(repo, repo, s, day14 + dt.timedelta(days=3), ["cuda12_8"], cfg)
    assert later.created == [] and later.updated == [issue.number]
    assert len(fake_github.repo("pytorch/pytorch").issues) == 1


def test_dropped_connection_after_create_does_not_duplicate(
    tmp_path: Path, fake_github: FakeGitHub
) -> None:
    w = make_world(tmp_path)
    repo = repo_for(fake_github, w)
    fake_github.fail("POST", r"/issues$", None, times=1, after=True, reset=True)
    result = run(fake_github, repo, series(w))
    stored = fake_github.repo("pytorch/pytorch").issues
    assert len(stored) == 1 and result.created == [stored[0].number]
    assert fake_github.count("POST", r"/issues$") == 1


def test_a_new_jump_is_not_also_a_grew_again_comment_on_the_older_issue(
    tmp_path: Path, fake_github: FakeGitHub
) -> None:
    w = make_world(tmp_path)
    repo = repo_for(fake_github, w)
    first = run(fake_github, repo, series(w)).created[0]
    older = fake_github.repo("pytorch/pytorch").issue(first)
    assert older is not None
    # Oct 14: a second jump (+3.0 MB): its own issue, and no "grew again" on the first.
    s = series(w, cuda12_8={"2025-10-12": 859.6, "2025-10-13": 859.6, "2025-10-14": 862.6})
    second = run(fake_github, repo, s, dt.date(2025, 10, 14))
    assert len(second.created) == 1 and second.updated == []
    assert older.comments == []
    # The next night (+0.6 MB): the first issue still says nothing (the growth was
    # reported once, by the newer issue).
    s = series(w, cuda12_8={"2025-10-14": 862.6, "2025-10-15": 863.2, "2025-10-16": 863.8})
    assert run(fake_github, repo, s, dt.date(2025, 10, 15)).updated == []
    # Drifting on (+1.2 MB since the second report): drift is never "grew again".
    grew = run(fake_github, repo, s, dt.date(2025, 10, 16))
    assert grew.updated == [] and grew.created == []
    assert older.comments == []
    # Everything undone by an unrelated drop (no revert of a listed candidate): the first
    # issue is back at its pre-event level and hears "offset" once; the second is 4.3 MB
    # below its own and hears nothing (only a return within tolerance is its news).
    s = series(w, cuda12_8={"2025-10-14": 862.6, "2025-10-17": 855.3})
    rolled = run(fake_github, repo, s, dt.date(2025, 10, 17))
    assert rolled.updated == [first]
    assert len(older.comments) == 1 and "Back without a revert" in (older.comments[0].body or "")
