"""Silence reported (issue 29 item 3): a watched variant without a wheel is a warning each
night and, after ``--silence-nights`` nights (default 2), one issue — updated, never
duplicated, closed when the wheel is back — against the fake GitHub through PyGithub."""

from __future__ import annotations

import dataclasses
import datetime as dt
from pathlib import Path

from fakegithub import FakeGitHub
from history_factory import run
from wheel_size.github.client import RetryPolicy, connect
from wheel_size.github.port import PyGithubPort
from wheel_size.history import History
from wheel_size.history.model import JobRecord
from wheel_size.regressions.issues.silence import SilenceSettings, sync_silences
from wheel_size.series import SizeSeries
from wheel_size.series.silence import silence_lines, silence_of
from wheel_size.variants import ArtifactNaming

FAST = RetryPolicy(total=4, backoff=0.0, max_wait=5.0, secondary_wait=0.1, between_writes=0.0)
D0 = dt.date(2025, 10, 1)
LABEL = "wheel-size-regression"


def day(i: int) -> dt.date:
    return D0 + dt.timedelta(days=i)


def nights(with_cuda: int, without: int, back: int = 0) -> list:  # type: ignore[type-arg]
    """``with_cuda`` nights with cpu and cuda12_8, ``without`` nights with cpu only (the
    run finished without cuda12_8), then ``back`` nights with both again."""
    out = []
    for i in range(with_cuda + without + back):
        sizes = {"cpu": 180.0}
        if i < with_cuda or i >= with_cuda + without:
            sizes["cuda12_8"] = 860.0
        out.append(run(day(i), sizes))
    return out


def repo(fake: FakeGitHub):  # type: ignore[no-untyped-def]
    fake.add_repo("pytorch/pytorch")
    return PyGithubPort(connect(fake.token, fake.url, retry=FAST)).repository("pytorch/pytorch")


def sync(fake_repo, runs, until: dt.date, n: int = 2):  # type: ignore[no-untyped-def]
    series = SizeSeries(History.of(runs))
    return sync_silences(
        fake_repo,
        series,
        until,
        ["cuda12_8", "cpu"],
        SilenceSettings((LABEL,), n),
        repo_url="https://github.com/pytorch/pytorch",
    )


def test_one_silent_night_is_a_warning_only(fake_github: FakeGitHub) -> None:
    runs = nights(5, 1)
    series = SizeSeries(History.of(runs))
    (line,) = silence_lines(series, ["cuda12_8", "cpu"], day(5))
    assert (
        line
        == "no cuda12_8 wheel on 2025-10-06 (the run finished without manywheel-py3_12-cuda12_8)"
    )
    r = repo(fake_github)
    assert sync(r, runs, day(5)).created == []
    assert fake_github.repo("pytorch/pytorch").issues == []


def test_three_silent_nights_open_one_issue_then_follow_up_then_close(
    fake_github: FakeGitHub,
) -> None:
    r = repo(fake_github)
    runs = nights(5, 3, back=1)
    # night by night, as the nightly runs it: 1 silent night (warning), 2 (issue), 3 (comment)
    assert sync(r, runs[:6], day(5)).created == []
    opened = sync(r, runs[:7], day(6))
    (issue,) = fake_github.repo("pytorch/pytorch").issues
    assert opened.created == [issue.number]
    assert issue.title == "No `cuda12_8` wheel since 2025-10-06"
    body = issue.body or ""
    assert "its last size was on 2025-10-05" in body
    assert "/actions/runs/202510060" in body and "/actions/runs/202510070" in body
    # re-running the night: nothing new
    assert sync(r, runs[:7], day(6)).updated == []
    third = sync(r, runs[:8], day(7))
    assert third.created == [] and third.updated == [issue.number]
    assert len(issue.comments) == 1 and "Still no `cuda12_8` wheel" in (
        issue.comments[0].body or ""
    )
    assert "3 nights since 2025-10-06" in (issue.comments[0].body or "")
    assert sync(r, runs[:8], day(7)).updated == []  # once per night
    assert len(fake_github.repo("pytorch/pytorch").issues) == 1
    back = sync(r, runs, day(8))
    assert back.updated == [issue.number] and issue.state == "closed"
    assert "**Back** on 2025-10-09" in (issue.comments[-1].body or "")


def test_a_backfill_of_three_silent_nights_opens_one_issue(fake_github: FakeGitHub) -> None:
    r = repo(fake_github)
    res = sync(r, nights(5, 3), day(7))
    (issue,) = fake_github.repo("pytorch/pytorch").issues
    assert res.created == [issue.number]
    assert "3 nights with nightly runs and without it" in (issue.body or "")


def test_a_rename_is_named_from_the_artifacts_and_the_jobs(fake_github: FakeGitHub) -> None:
    runs = nights(5, 0)
    renamed = [run(day(5 + i), {"cpu": 180.0, "cuda12_9": 861.0}) for i in range(2)]
    series = SizeSeries(History.of([*runs, *renamed]))
    s = silence_of(series, "cuda12_8", day(6))
    assert s is not None and s.renamed_to == ("manywheel-py3_12-cuda12_9",)
    r = repo(fake_github)
    sync(r, [*runs, *renamed], day(6))
    (issue,) = fake_github.repo("pytorch/pytorch").issues
    assert "(renamed to `manywheel-py3_12-cuda12_9`?)" in issue.title
    assert "renamed to `manywheel-py3_12-cuda12_9`" in (issue.body or "")
    # the advice is a flag the tool accepts: the variant, not the artifact name
    assert "(`--variant cuda12_9`)" in (issue.body or "")
    assert ArtifactNaming().resolve("cuda12_9", ["manywheel-py3_12-cuda12_9"]) == "cuda12_9"
    # opened after the silent nights, not closed after them
    assert "Opened after 2 silent nights (`--silence-nights`); updated while" in (issue.body or "")
    # the jobs listing shows it too when the artifact of the new name was not uploaded
    job = JobRecord(
        "manywheel-py3_12-cuda12_9-build / build",
        status="completed",
        conclusion="success",
        artifact="manywheel-py3_12-cuda12_9",
    )
    quiet = [dataclasses.replace(run(day(5), {"cpu": 180.0}), jobs=(job,))]
    s = silence_of(SizeSeries(History.of([*runs, *quiet])), "cuda12_8", day(5))
    assert s is not None and s.renamed_to == ("manywheel-py3_12-cuda12_9",)


def test_silence_nights_zero_opens_nothing(fake_github: FakeGitHub, tmp_path: Path) -> None:
    r = repo(fake_github)
    assert sync(r, nights(5, 4), day(8), n=0).created == []
    assert fake_github.repo("pytorch/pytorch").issues == []


def test_a_variant_never_seen_is_not_a_silence(fake_github: FakeGitHub) -> None:
    """A watched name that never had a wheel in the data read (not built yet, or a typo the
    variant resolution names) opens no silence issue."""
    runs = nights(5, 3)
    series = SizeSeries(History.of(runs))
    assert silence_of(series, "cuda13_0", day(7)) is None
    r = repo(fake_github)
    res = sync_silences(
        r, series, day(7), ["cuda13_0"], SilenceSettings((LABEL,), 2), repo_url="https://x/y"
    )
    assert res.created == [] and fake_github.repo("pytorch/pytorch").issues == []


def test_a_silence_issue_an_older_release_opened_is_followed(fake_github: FakeGitHub) -> None:
    """An open silence issue whose marker has the old prefix (``<!-- wheel-size:``) is the
    one the next night comments on: no second issue for the same silence."""
    r = repo(fake_github)
    runs = nights(5, 3)
    sync(r, runs[:7], day(6))
    (issue,) = fake_github.repo("pytorch/pytorch").issues
    issue.body = (issue.body or "").replace("<!-- wheel-size-action:", "<!-- wheel-size:")
    assert "<!-- wheel-size:silence variant=cuda12_8 -->" in issue.body
    third = sync(r, runs[:8], day(7))
    assert third.created == [] and third.updated == [issue.number]
    assert len(fake_github.repo("pytorch/pytorch").issues) == 1
