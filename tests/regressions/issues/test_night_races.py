"""Issue 32, point 2: one issue per night event under any race (fake GitHub, real PyGithub,
a real git repository). Runs for different variants of one night used to open one issue
each; concurrent joins lost each other's markers (last PATCH wins); a run whose create
answer was lost adopted another run's issue and left its own open; duplicates left by
killed runs stayed open for good."""

from __future__ import annotations

import contextlib
import datetime as dt
import threading
from pathlib import Path

import pytest
from test_trust_lifecycle import REPO, cfg, connect_repo, make_world, run_in_thread

from fakegithub import FakeGitHub
from regression_world import World, points
from wheel_size.regressions.investigation import Investigation
from wheel_size.regressions.issues.alerts import alert_night
from wheel_size.regressions.issues.sync import SyncResult, events_from_markers, keys_of
from wheel_size.units import MB

NIGHT = "2025-10-11"
# Four variants that all jump on Oct 11 (+4.3, +2.1, +1.6, +1.2 MB).
SIZES = {
    "cuda12_8": (855.3, 859.6),
    "cpu": (175.0, 177.1),
    "rocm6_4": (600.0, 601.6),
    "xpu": (300.0, 301.2),
}
VARIANTS = tuple(SIZES)


def series(w: World) -> dict[str, list]:  # type: ignore[type-arg]
    return {
        v: points(v, {"2025-10-10": a, NIGHT: b, "2025-10-12": b}, w) for v, (a, b) in SIZES.items()
    }


def run(fake: FakeGitHub, w: World, variants: tuple[str, ...], day: str = NIGHT, **kw: object):  # type: ignore[no-untyped-def]
    repo = connect_repo(fake)
    date = dt.date.fromisoformat(day)
    return alert_night(repo, repo, series(w), date, list(variants), cfg(), **kw)  # type: ignore[arg-type]


def the_one_issue(fake: FakeGitHub) -> tuple[object, list[str]]:
    """The night's one open issue and the event keys its body carries; every other issue
    closed with one link to it."""
    issues = fake.repo(REPO).issues
    open_ = [i for i in issues if i.state == "open"]
    assert len(open_) == 1, [(i.number, i.state, keys_of(i.body)) for i in issues]
    survivor = open_[0]
    assert survivor.number == min(i.number for i in issues)
    for dup in issues:
        if dup is not survivor:
            notes = [c for c in dup.comments if f"duplicate of #{survivor.number}" in c.body]
            assert len(notes) == 1
    return survivor, keys_of(survivor.body)


def concurrent_variant_runs(fake: FakeGitHub, w: World, groups: list[tuple[str, ...]]) -> None:
    """One run per group of variants, all investigating before any creates (a barrier)."""
    barrier = threading.Barrier(len(groups))

    def enrich(inv: Investigation) -> Investigation:
        barrier.wait(timeout=60)
        return inv

    def one(variants: tuple[str, ...]) -> SyncResult:
        try:
            return run(fake, w, variants, enrich=enrich)
        except BaseException:
            barrier.abort()
            raise

    out: dict[str, object] = {}
    threads = [
        run_in_thread(lambda g=g: one(g), out, f"run{n}")  # type: ignore[misc]
        for n, g in enumerate(groups)
    ]
    for thread in threads:
        thread.join()
    for name, result in out.items():
        assert isinstance(result, SyncResult), (name, result)


@pytest.mark.parametrize("latency", [0.0, 0.05])
def test_four_concurrent_variant_runs_give_one_issue_with_four_markers(
    tmp_path: Path, fake_github: FakeGitHub, latency: float
) -> None:
    w = make_world(tmp_path)
    fake_github.add_repo(REPO, git_dir=w.path)
    fake_github.latency = latency
    concurrent_variant_runs(fake_github, w, [(v,) for v in VARIANTS])
    survivor, keys = the_one_issue(fake_github)
    assert sorted(keys) == sorted(f"jump/{v}/{NIGHT}" for v in VARIANTS)
    assert all(v in survivor.title for v in VARIANTS)  # type: ignore[attr-defined]
    # A re-run of every variant changes nothing.
    before = len(fake_github.requests)
    again = run(fake_github, w, VARIANTS)
    assert again.created == [] and again.updated == []
    assert all(r.method in ("GET", "POST") for r in fake_github.requests[before:])


def test_concurrent_joins_keep_every_marker(tmp_path: Path, fake_github: FakeGitHub) -> None:
    """Three runs join the night's issue at once and their PATCHes land in one burst (the
    last one would win): every marker survives."""
    w = make_world(tmp_path)
    fake_github.add_repo(REPO, git_dir=w.path)
    first = run(fake_github, w, ("cuda12_8",))
    assert len(first.created) == 1
    held = fake_github.hold("PATCH", r"/issues/\d+$", times=3)
    out: dict[str, object] = {}
    threads = [
        run_in_thread(lambda v=v: run(fake_github, w, (v,)), out, v)  # type: ignore[misc]
        for v in VARIANTS[1:]
    ]
    while held.hits < 3 and any(t.is_alive() for t in threads):
        threading.Event().wait(0.02)
    held.release()
    for thread in threads:
        thread.join()
    assert all(isinstance(r, SyncResult) for r in out.values()), out
    _, keys = the_one_issue(fake_github)
    assert sorted(keys) == sorted(f"jump/{v}/{NIGHT}" for v in VARIANTS)


def test_a_run_that_lost_its_create_answer_settles_its_own_issue(
    tmp_path: Path, fake_github: FakeGitHub
) -> None:
    """Run A's create is in flight while run B opens the event's issue; A's create is
    stored but its answer lost (502). A finds its own issue by its run marker and closes it
    as B's duplicate (it used to adopt B's issue and leave its own open for good)."""
    w = make_world(tmp_path)
    fake_github.add_repo(REPO, git_dir=w.path)
    held = fake_github.hold("POST", r"/issues$")
    held.status, held.after = 502, True  # carried out when released, its answer lost
    out: dict[str, object] = {}
    a = run_in_thread(lambda: run(fake_github, w, ("cuda12_8",)), out, "a")
    while not held.reached.wait(0.05) and a.is_alive():
        pass
    try:
        b = run(fake_github, w, ("cuda12_8",))
    finally:
        held.release()
        a.join()
    assert isinstance(out["a"], SyncResult), out["a"]
    survivor, _ = the_one_issue(fake_github)
    assert b.created == [survivor.number]  # type: ignore[attr-defined]


@pytest.mark.parametrize("left", [2, 4])
def test_duplicates_left_by_killed_runs_are_closed_by_the_next_run(
    tmp_path: Path, fake_github: FakeGitHub, left: int
) -> None:
    """Killed runs left ``left`` open issues for one night event (some for other variants
    of that night): the next run, whatever night it records, keeps the oldest, joins the
    others' variants to it and closes them with a link."""
    w = make_world(tmp_path)
    repo = fake_github.add_repo(REPO, git_dir=w.path)
    run(fake_github, w, ("cuda12_8",))
    first = repo.issues[0]
    body = first.body or ""
    cpu = (
        f"<!-- wheel-size-action:event=jump/cpu/{NIGHT} before=2025-10-10:{int(175.0 * MB)} "
        f"after={NIGHT}:{int(177.1 * MB)} -->"
    )
    for n in range(1, left):  # as if each run died right after its create
        text = body if n % 2 == 0 else cpu + body[body.index("\n") :]
        repo.add_issue(first.title, text, ["wheel-size-regression"])
    assert sum(i.state == "open" for i in repo.issues) == left
    later = run(fake_github, w, ("cuda12_8",), day="2025-10-12")
    assert later.created == []
    _, keys = the_one_issue(fake_github)
    assert sorted(keys) == sorted(f"jump/{v}/{NIGHT}" for v in VARIANTS[:2])


@pytest.mark.parametrize("kill_at", range(8))
def test_kills_at_every_write_leave_one_issue_after_a_clean_rerun(
    tmp_path: Path, fake_github: FakeGitHub, kill_at: int
) -> None:
    """Two variant runs of one night race; every write from the ``kill_at``-th on is
    refused (the runs die there). A clean re-run of both variants leaves one open issue
    with both markers, and no duplicate open."""
    w = make_world(tmp_path)
    fake_github.add_repo(REPO, git_dir=w.path)
    dead = [
        fake_github.fail(m, r"/issues", reset=True, times=None, skip=kill_at)
        for m in ("POST", "PATCH")
    ]
    try:
        concurrent_variant_runs_tolerant(fake_github, w, [("cuda12_8",), ("cpu",)])
    finally:
        for fault in dead:
            fault.times = 0
    run(fake_github, w, ("cuda12_8",))
    run(fake_github, w, ("cpu",))
    _, keys = the_one_issue(fake_github)
    assert sorted(keys) == sorted(f"jump/{v}/{NIGHT}" for v in ("cpu", "cuda12_8"))
    assert all(len(events_from_markers(i.body)) >= 1 for i in fake_github.repo(REPO).issues)


def concurrent_variant_runs_tolerant(
    fake: FakeGitHub, w: World, groups: list[tuple[str, ...]]
) -> None:
    """Like :func:`concurrent_variant_runs`, but a run may die (a refused write)."""
    barrier = threading.Barrier(len(groups))

    def enrich(inv: Investigation) -> Investigation:
        with contextlib.suppress(threading.BrokenBarrierError):
            barrier.wait(timeout=60)
        return inv

    out: dict[str, object] = {}
    threads = [
        run_in_thread(lambda g=g: run(fake, w, g, enrich=enrich), out, f"run{n}")  # type: ignore[misc]
        for n, g in enumerate(groups)
    ]
    for thread in threads:
        thread.join()
