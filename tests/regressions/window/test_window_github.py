"""The commit window against the fake GitHub server backed by a real git repository."""

from __future__ import annotations

from pathlib import Path

from fakegithub import FakeGitHub
from regression_world import Change, World, build_world
from wheel_size.github.client import RetryPolicy, connect
from wheel_size.github.port import PyGithubPort, PyGithubRepository
from wheel_size.regressions.window.compare import Night, fetch_window

FAST = RetryPolicy(total=4, backoff=0.0, max_wait=5.0, secondary_wait=0.1, between_writes=0.0)


def repo_for(fake: FakeGitHub, world: World) -> PyGithubRepository:
    fake.add_repo("pytorch/pytorch", git_dir=world.path)
    return PyGithubPort(connect(fake.token, fake.url, retry=FAST)).repository("pytorch/pytorch")


def big_world(tmp_path: Path, n: int = 320) -> World:
    changes = [
        Change(f"change {i} (#{1000 + i})", {f"src/f{i % 7}.cpp": f"{i}\n"}) for i in range(n)
    ]
    return build_world(
        tmp_path / "git", changes, [("2025-10-10", 5, None), ("2025-10-11", n - 1, None)]
    )


def test_window_beyond_250_commits_is_read_in_pages(
    tmp_path: Path, fake_github: FakeGitHub
) -> None:
    world = big_world(tmp_path)
    repo = repo_for(fake_github, world)
    before = Night("2025-10-10", world.nightly["2025-10-10"], world.bases["2025-10-10"])
    after = Night("2025-10-11", world.nightly["2025-10-11"], world.bases["2025-10-11"])
    window = fetch_window(repo, before, after)
    assert window.mode == "base"
    assert window.total_commits == 314
    assert [c.sha for c in window.commits] == world.main[6:]  # every one, oldest first
    assert window.notes == []
    assert fake_github.count("GET", r"/compare/") == 4  # 100 a page, nothing more
    assert fake_github.count("GET", r"/commits/") == 0  # no per-commit re-fetch


def test_base_sha_read_from_the_nightly_message_when_unknown(
    tmp_path: Path, fake_github: FakeGitHub
) -> None:
    world = big_world(tmp_path, 20)
    repo = repo_for(fake_github, world)
    before = Night("2025-10-10", world.nightly["2025-10-10"], None)
    after = Night("2025-10-11", world.nightly["2025-10-11"], None)
    window = fetch_window(repo, before, after)
    assert window.mode == "base"
    assert window.before.base_sha == world.bases["2025-10-10"]
    assert [c.sha for c in window.commits] == world.main[6:]


def test_missing_base_sha_falls_back_to_head_shas_and_says_so(
    tmp_path: Path, fake_github: FakeGitHub
) -> None:
    changes = [Change(f"c{i}", {"a.cpp": str(i)}) for i in range(10)]
    world = build_world(
        tmp_path / "git",
        changes,
        [("2025-10-10", 2, None), ("2025-10-11", 9, "2025-10-11 nightly release")],
    )
    repo = repo_for(fake_github, world)
    before = Night("2025-10-10", world.nightly["2025-10-10"], None)
    after = Night("2025-10-11", world.nightly["2025-10-11"], None)
    window = fetch_window(repo, before, after)
    assert window.mode == "head"
    assert window.compared == (world.nightly["2025-10-10"], world.nightly["2025-10-11"])
    assert [c.sha for c in window.commits] == [world.nightly["2025-10-11"]]
    text = " ".join(window.notes)
    assert "names no base SHA" in text and "nightly head SHAs" in text


def test_compare_404_after_a_force_push_falls_back(tmp_path: Path, fake_github: FakeGitHub) -> None:
    world = big_world(tmp_path, 12)
    repo = repo_for(fake_github, world)
    gone = "f" * 40  # the base commit no longer exists
    before = Night("2025-10-10", world.nightly["2025-10-10"], gone)
    after = Night("2025-10-11", world.nightly["2025-10-11"], world.bases["2025-10-11"])
    window = fetch_window(repo, before, after)
    assert window.mode == "head"
    assert any("404" in note and "force push" in note for note in window.notes)
    assert fake_github.count("GET", r"/compare/") == 2


def test_nothing_to_compare_says_so(tmp_path: Path, fake_github: FakeGitHub) -> None:
    world = big_world(tmp_path, 12)
    repo = repo_for(fake_github, world)
    window = fetch_window(repo, Night("2025-10-10", None), Night("2025-10-11", None))
    assert window.mode == "none" and window.commits == []
    assert window.notes[-1] == "no commit window could be determined"


def test_rate_limited_compare_is_waited_out(tmp_path: Path, fake_github: FakeGitHub) -> None:
    world = big_world(tmp_path, 12)
    repo = repo_for(fake_github, world)
    fake_github.fail_primary_rate_limit("GET", r"/compare/", times=1, reset_in=0.5)
    fake_github.fail_secondary_rate_limit("GET", r"/compare/", times=1, retry_after=0.2)
    before = Night("2025-10-10", world.nightly["2025-10-10"], world.bases["2025-10-10"])
    after = Night("2025-10-11", world.nightly["2025-10-11"], world.bases["2025-10-11"])
    window = fetch_window(repo, before, after)
    assert window.mode == "base" and len(window.commits) == 6
    statuses = [r.status for r in fake_github.requests if "/compare/" in r.path]
    assert statuses[:3] == [403, 403, 200]


def test_same_base_sha_says_the_build_environment_changed(
    tmp_path: Path, fake_github: FakeGitHub
) -> None:
    import datetime as dt

    from wheel_size.regressions.events import Event
    from wheel_size.regressions.investigation import investigate
    from wheel_size.series import SizePoint
    from wheel_size.units import MB

    changes = [Change(f"c{i}", {"a.cpp": str(i)}) for i in range(4)]
    world = build_world(
        tmp_path / "git", changes, [("2025-10-10", 3, None), ("2025-10-11", 3, None)]
    )
    repo = repo_for(fake_github, world)
    before = SizePoint(dt.date(2025, 10, 10), "cpu", 100 * MB, 1, world.nightly["2025-10-10"],
                       world.bases["2025-10-10"])  # fmt: skip
    after = SizePoint(dt.date(2025, 10, 11), "cpu", 103 * MB, 2, world.nightly["2025-10-11"],
                      world.bases["2025-10-11"])  # fmt: skip
    inv = investigate(
        repo, Event("jump", "cpu", after.date, before, after), {"cpu": [before, after]}
    )
    assert inv.window.mode == "base" and inv.candidates == []
    assert any("build environment" in note for note in inv.notes)
