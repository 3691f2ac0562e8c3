"""Collection through PyGithub against the fake GitHub server (real HTTP, real JSON shapes)."""

from __future__ import annotations

import datetime as dt

import pytest

from fakegithub import FakeGitHub
from nightly_world import MB, WORKFLOW_ID, add_month, add_night, add_world, base_sha
from wheel_size.collect import Window, WorkflowSource, collect, list_runs
from wheel_size.errors import GitHubError, InputError
from wheel_size.github.client import RetryPolicy, connect
from wheel_size.github.port import PyGithubPort

D = dt.date
SOURCE = WorkflowSource("pytorch/pytorch", str(WORKFLOW_ID), "nightly")


def client(fake: FakeGitHub) -> PyGithubPort:
    return PyGithubPort(connect(fake.token, fake.url, retry=RetryPolicy(total=0, between_writes=0)))


def test_month_backfill_all_variants_within_budget(fake_github: FakeGitHub) -> None:
    wf = add_world(fake_github)
    add_month(wf, 2025, 10, expired=True)
    add_night(wf, D(2025, 10, 5), branch="main")  # not the nightly branch
    before = fake_github.count()
    runs = collect(client(fake_github), SOURCE, D(2025, 10, 1), D(2025, 10, 31))
    requests = fake_github.count() - before
    assert requests <= 40  # the seed's procedure: 2 × 31 × 8 = 496
    assert requests == 1 + 31  # one runs page, one artifact page per run
    assert len(runs) == 31
    assert all(len(r.artifacts) == 8 for r in runs)
    assert all(a.expired for r in runs for a in r.artifacts)  # expired still have sizes
    oct11 = next(r for r in runs if r.date == D(2025, 10, 11))
    assert oct11.base_sha == base_sha(D(2025, 10, 11))
    assert oct11.title and oct11.title.startswith("2025-10-11 nightly release (")
    assert oct11.artifact("manywheel-py3_12-cuda12_8").size_in_bytes == round(864.0 * MB)  # type: ignore[union-attr]
    assert oct11.workflow_path == ".github/workflows/generated-linux-binary-manywheel-nightly.yml"
    assert oct11.artifacts[0].digest and oct11.artifacts[0].digest.startswith("sha256:")


def test_workflow_by_file_name(fake_github: FakeGitHub) -> None:
    wf = add_world(fake_github)
    add_night(wf, D(2025, 10, 11))
    src = WorkflowSource("pytorch/pytorch", "generated-linux-binary-manywheel-nightly.yml")
    runs = collect(client(fake_github), src, D(2025, 10, 11), D(2025, 10, 11))
    assert [r.date for r in runs] == [D(2025, 10, 11)]
    assert fake_github.count("GET", r"/runs$") == 1
    listing = next(r for r in fake_github.requests if r.path.endswith("/runs"))
    assert listing.query == {"branch": "nightly", "created": "2025-10-11", "per_page": "100"}


def test_known_complete_runs_cost_nothing(fake_github: FakeGitHub) -> None:
    wf = add_world(fake_github)
    add_night(wf, D(2025, 10, 10))
    gh = client(fake_github)
    first = collect(gh, SOURCE, D(2025, 10, 10), D(2025, 10, 10))
    add_night(wf, D(2025, 10, 11))
    before = fake_github.count()
    again = collect(
        gh, SOURCE, D(2025, 10, 10), D(2025, 10, 11), known={r.run_id: r for r in first}
    )
    assert fake_github.count() - before == 2  # runs page + the new night's artifacts
    assert [r.date for r in again] == [D(2025, 10, 10), D(2025, 10, 11)]
    assert again[0] is first[0]


def test_more_than_the_result_cap_is_windowed(fake_github: FakeGitHub) -> None:
    wf = add_world(fake_github)
    start = dt.datetime(2025, 10, 1, tzinfo=dt.timezone.utc)
    for i in range(1150):  # 230 runs a day for 5 days: one listing would stop at 1,000
        wf.add_run(created_at=start + dt.timedelta(minutes=i * 6 + 1), message="x")
    runs = list(list_runs(client(fake_github), SOURCE, D(2025, 10, 1), D(2025, 10, 5)))
    assert len(runs) == 1150
    assert len({r["id"] for r in runs}) == 1150
    queries = [r.query.get("created") for r in fake_github.requests if r.path.endswith("/runs")]
    assert queries[0] == "2025-10-01..2025-10-05"  # 1,150 ≥ the cap: split
    assert "2025-10-01..2025-10-02" in queries


def test_window_halves_keep_days_then_split_time() -> None:
    w = Window.of_days(D(2025, 10, 1), D(2025, 10, 31))
    assert w.query() == "2025-10-01..2025-10-31"
    a, b = w.halves()
    assert (a.query(), b.query()) == ("2025-10-01..2025-10-15", "2025-10-16..2025-10-31")
    one = Window.of_days(D(2025, 10, 1), D(2025, 10, 1))
    x, y = one.halves()
    assert x.query() == "2025-10-01T00:00:00Z..2025-10-01T11:59:59Z"
    assert y.query() == "2025-10-01T12:00:00Z..2025-10-01T23:59:59Z"


def test_unknown_workflow_and_repository(fake_github: FakeGitHub) -> None:
    add_world(fake_github)
    gh = client(fake_github)
    with pytest.raises(GitHubError, match=r"workflow 'nope\.yml' not found in pytorch/pytorch"):
        list(
            list_runs(
                gh, WorkflowSource("pytorch/pytorch", "nope.yml"), D(2025, 10, 1), D(2025, 10, 2)
            )
        )
    with pytest.raises(GitHubError, match="repository pytorch/nope not found"):
        list(list_runs(gh, WorkflowSource("pytorch/nope", "1"), D(2025, 10, 1), D(2025, 10, 2)))


def test_token_without_actions_read(fake_github: FakeGitHub) -> None:
    add_world(fake_github)
    fake_github.set_permissions({"contents": "read"})
    with pytest.raises(GitHubError, match=r"actions: read") as exc:
        collect(client(fake_github), SOURCE, D(2025, 10, 1), D(2025, 10, 2))
    assert fake_github.token not in str(exc.value)


def test_bad_source() -> None:
    with pytest.raises(InputError, match="OWNER/NAME"):
        WorkflowSource("pytorch", "1")
    with pytest.raises(InputError, match="workflow"):
        WorkflowSource("a/b", " ")


def test_pages_follow_the_client_page_size(fake_github: FakeGitHub) -> None:
    from github import Auth, Github

    wf = add_world(fake_github)
    start = dt.datetime(2025, 10, 1, tzinfo=dt.timezone.utc)
    for i in range(75):
        wf.add_run(created_at=start + dt.timedelta(minutes=i), message="x")
    gh = PyGithubPort(
        Github(auth=Auth.Token(fake_github.token), base_url=fake_github.url, per_page=30)
    )
    runs = list(list_runs(gh, SOURCE, D(2025, 10, 1), D(2025, 10, 1)))
    assert len(runs) == 75
    assert fake_github.count("GET", r"/runs$") == 3


def test_more_than_100_artifacts_in_a_run_are_all_read(fake_github: FakeGitHub) -> None:
    wf = add_world(fake_github)
    run = wf.add_run(created_at="2025-10-11T07:30:00Z", message="2025-10-11 nightly release (x)")
    for i in range(230):  # e.g. every Python version × variant × platform of a night
        run.add_artifact(f"manywheel-py3_{i}-cuda12_8", size_in_bytes=1000 + i)
    runs = collect(client(fake_github), SOURCE, D(2025, 10, 11), D(2025, 10, 11))
    (record,) = runs
    assert len(record.artifacts) == 230
    assert {a.size_in_bytes for a in record.artifacts} == {1000 + i for i in range(230)}
    assert fake_github.count("GET", r"/artifacts$") == 3  # 100 a page
