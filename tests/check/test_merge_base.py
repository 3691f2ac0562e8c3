"""A pull request compared with the night built from the nearest ancestor of its merge base,
over a real git history: a PR whose base is weeks old, the fallback to the newest night said
plainly (the choice over the in-memory port, ``World.job``), and the request count measured
through PyGithub against the fake server (``World.check``)."""

from __future__ import annotations

import argparse
import dataclasses
import datetime as dt
import hashlib
import json
import os
import subprocess
from pathlib import Path

import pytest

from check_world import NIGHTLY, torch_wheel
from cli_runner import run_main
from fakegithub import FakeGitHub, add_pull
from fakegithub.memory import MemoryGitHub
from history_factory import run as run_record
from wheel_size.check.mergebase import NightChoice, nearest_night, stored_nights
from wheel_size.check.pull_check import check_pull_request
from wheel_size.cli.check import configure_parser, request_from_args
from wheel_size.github.client import RetryPolicy, connect
from wheel_size.github.compare import PyGithubCompares
from wheel_size.history import DirectoryStore
from wheel_size.history.history import load_history

FAST = RetryPolicy(total=0, backoff=0.0, max_wait=1.0, secondary_wait=0.0, timeout=5)
FIRST = dt.date(2026, 1, 1)
DAYS = 40  # main gets three commits a day; the night of a day is built from its first


def _git(root: Path, *args: str, when: dt.datetime | None = None) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "Dev", "GIT_AUTHOR_EMAIL": "dev@example.com"}
    env.update({"GIT_COMMITTER_NAME": "Dev", "GIT_COMMITTER_EMAIL": "dev@example.com"})
    if when is not None:
        stamp = when.strftime("%Y-%m-%dT%H:%M:%S+0000")
        env.update({"GIT_AUTHOR_DATE": stamp, "GIT_COMMITTER_DATE": stamp})
    done = subprocess.run(
        ["git", "-C", str(root), *args], env=env, capture_output=True, text=True, check=True
    )
    return done.stdout.strip()


@dataclasses.dataclass
class Main:
    root: Path
    by_day: dict[dt.date, list[str]]  # the day's three main commits, in order

    def branch(self, name: str, at: str, when: dt.datetime) -> str:
        """A pull request's branch off ``at`` with one commit of its own."""
        _git(self.root, "checkout", "-q", "-b", name, at)
        _git(self.root, "commit", "-q", "--allow-empty", "-m", f"{name} work", when=when)
        head = _git(self.root, "rev-parse", "HEAD")
        _git(self.root, "checkout", "-q", "main")
        return head


@pytest.fixture(scope="module")
def main_history(tmp_path_factory: pytest.TempPathFactory) -> Main:
    root = tmp_path_factory.mktemp("pytorch")
    _git(root, "init", "-q", "-b", "main")
    by_day: dict[dt.date, list[str]] = {}
    for d in range(DAYS):
        day = FIRST + dt.timedelta(days=d)
        for hour in (1, 9, 17):
            when = dt.datetime.combine(day, dt.time(hour))
            _git(root, "commit", "-q", "--allow-empty", "-m", f"{day} {hour}h", when=when)
            by_day.setdefault(day, []).append(_git(root, "rev-parse", "HEAD"))
    return Main(root, by_day)


class World:
    """The nightly records of ``days`` (base: the day's first main commit) and one PR."""

    def __init__(
        self,
        fake: FakeGitHub,
        tmp: Path,
        main: Main,
        days: range,
        failed: frozenset[int] = frozenset(),
    ) -> None:
        self.fake, self.tmp, self.main = fake, tmp, main
        self.repo = fake.add_repo("pytorch/pytorch", git_dir=main.root)
        self.history = tmp / "history"
        records = []
        for d in days:
            day = FIRST + dt.timedelta(days=d)
            mb = 100.0 + d  # every night one MB bigger: which night was used shows in the delta
            # A failed CUDA job leaves a night with the CPU wheel only.
            record = run_record(day, {"cpu": mb} if d in failed else {"cuda12_8": mb})
            base = main.by_day[day][0]
            records.append(
                dataclasses.replace(record, base_sha=base, title=f"{day} nightly release ({base})")
            )
        DirectoryStore(self.history).write_runs(records)
        self.stored = self._snapshot()
        self.wheel = torch_wheel(tmp / "pr" / NIGHTLY, "2.11.0.dev20260210+cu128")

    def _snapshot(self) -> dict[str, str]:
        return {
            p.relative_to(self.history).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(self.history.rglob("*"))
            if p.is_file()
        }

    def pr(self, at: str, name: str = "feature") -> int:
        when = dt.datetime.combine(FIRST + dt.timedelta(days=DAYS + 1), dt.time(12))
        head = self.main.branch(f"{name}-{at[:7]}", at, when)
        return add_pull(self.repo, name, "A change.", head_sha=head, head_ref=name).number

    def job(self, number: int, *extra: str) -> tuple[dict, str]:  # type: ignore[type-arg]
        """The check itself over the in-memory port: its JSON document and its comment."""
        parser = argparse.ArgumentParser()
        configure_parser(parser)
        argv = [str(self.tmp / "pr"), "--repo", "pytorch/pytorch", "--history",
                str(self.history), "--pr-number", str(number), "--no-comment",
                "--max-download-mb", "0", *extra]  # fmt: skip
        request = request_from_args(parser.parse_args(argv))
        outcome = check_pull_request(request, MemoryGitHub(self.fake), token=None)
        assert self._snapshot() == self.stored  # nothing stored is lost or changed
        return {**outcome.result.to_json(), "warnings": outcome.warnings}, outcome.markdown

    def check(self, number: int, *extra: str) -> tuple[dict, str]:  # type: ignore[type-arg]
        out = self.tmp / "check.json"
        done = run_main(
            [
                "check", str(self.tmp / "pr"), "--repo", "pytorch/pytorch",
                "--history", str(self.history), "--pr-number", str(number), "--no-comment",
                "--max-download-mb", "0", "--json", str(out), *extra,
            ],
            env=self.fake.env(),
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        assert "Traceback" not in done.stderr
        assert self._snapshot() == self.stored  # nothing stored is lost or changed
        return json.loads(out.read_text()), done.stdout


def test_pr_based_weeks_ago_is_compared_with_the_night_of_its_merge_base(
    fake_github: FakeGitHub, tmp_path: Path, main_history: Main
) -> None:
    world = World(fake_github, tmp_path, main_history, range(DAYS))
    merge_base = main_history.by_day[FIRST + dt.timedelta(days=5)][2]  # Jan 6, 17h
    number = world.pr(merge_base)
    before = fake_github.count("GET", r"/compare/")
    result, markdown = world.check(number)
    compares = fake_github.count("GET", r"/compare/") - before
    chosen = result["compared_with"]
    assert chosen["mode"] == "merge-base" and chosen["fallback"] is None
    assert chosen["date"] == "2026-01-06" and chosen["merge_base_sha"] == merge_base
    assert chosen["base_sha"] == main_history.by_day[dt.date(2026, 1, 6)][0]
    assert chosen["commits_before_merge_base"] == 2  # the 9h and 17h commits of Jan 6
    [wheel] = result["wheels"]
    assert wheel["base"]["date"] == "2026-01-06"  # not the newest night, Feb 9
    sentence = (
        f"compared with the nightly of 2026-01-06 (base {chosen['base_sha'][:7]}, 2 commits "
        f"before this PR's merge base {merge_base[:7]})"
    )
    assert chosen["text"] == sentence and sentence in result["notes"]
    assert sentence in markdown
    assert "Compared with the stored nightly nearest this pull request's merge base" in markdown
    # One compare for the merge base, then a binary search over 40 nights: 3 + ceil(log2(40)).
    assert compares == chosen["requests"] <= 3 + 6


def test_merge_base_on_a_nights_base_is_zero_commits_apart(
    github_world: FakeGitHub, tmp_path: Path, main_history: Main
) -> None:
    world = World(github_world, tmp_path, main_history, range(DAYS))
    base = main_history.by_day[FIRST + dt.timedelta(days=20)][0]
    result, _ = world.job(world.pr(base, "exact"))
    chosen = result["compared_with"]
    assert chosen["date"] == "2026-01-21" and chosen["commits_before_merge_base"] == 0
    assert "this PR's merge base itself" in chosen["text"]


def test_recent_pr_costs_two_requests(
    fake_github: FakeGitHub, tmp_path: Path, main_history: Main
) -> None:
    world = World(fake_github, tmp_path, main_history, range(DAYS))
    tip = main_history.by_day[FIRST + dt.timedelta(days=DAYS - 1)][2]
    result, _ = world.check(world.pr(tip, "recent"))
    chosen = result["compared_with"]
    assert chosen["date"] == "2026-02-09" and chosen["commits_before_merge_base"] == 2
    assert chosen["requests"] == 2  # the merge base, and the newest night is its ancestor


def test_merge_base_older_than_every_night_is_not_checked_said_plainly(
    github_world: FakeGitHub, tmp_path: Path, main_history: Main
) -> None:
    # Issue 29 item 2: before, the newest night was used and the headline was ✅ for a wheel
    # that may be +6 MB over its real base.
    world = World(github_world, tmp_path, main_history, range(10, DAYS))  # nights from Jan 11
    merge_base = main_history.by_day[FIRST + dt.timedelta(days=2)][1]  # Jan 3
    result, markdown = world.job(world.pr(merge_base, "old"))
    chosen = result["compared_with"]
    assert chosen["date"] is None and chosen["commits_before_merge_base"] is None  # not guessed
    assert chosen["newest"] == "2026-02-09" and chosen["merge_base_sha"] == merge_base
    assert chosen["fallback"].startswith(
        f"no stored nightly is an ancestor of this PR's merge base ({merge_base[:7]}"
    )
    assert chosen["text"].startswith("not checked: no stored nightly is an ancestor")
    assert chosen["text"] in markdown
    [wheel] = result["wheels"]
    assert wheel["base"] is None and wheel["delta_bytes"] is None
    assert result["conclusion"] == "neutral" and result["failed"] is False
    assert "### ⚪ Wheel size: not checked" in markdown and "✅" not in markdown
    assert chosen["requests"] == 3  # merge base, newest night, oldest night


def test_compare_with_newest_makes_no_compare(
    fake_github: FakeGitHub, tmp_path: Path, main_history: Main
) -> None:
    world = World(fake_github, tmp_path, main_history, range(DAYS))
    number = world.pr(main_history.by_day[FIRST + dt.timedelta(days=3)][0], "asked")
    result, markdown = world.check(number, "--compare-with", "newest")
    assert fake_github.count("GET", r"/compare/") == 0
    assert result["compared_with"]["mode"] == "newest"
    assert result["wheels"][0]["base"]["date"] == "2026-02-09"
    assert "may include other changes" not in markdown


def test_unknown_head_is_not_checked_with_the_reason(
    github_world: FakeGitHub, tmp_path: Path, main_history: Main
) -> None:
    world = World(github_world, tmp_path, main_history, range(DAYS))
    number = add_pull(world.repo, "gone", head_sha="9" * 40).number  # a head GitHub lost
    result, markdown = world.job(number)
    chosen = result["compared_with"]
    assert chosen["date"] is None and chosen["fallback"].startswith(
        "this PR's merge base could not be found: comparing main..."
    )
    assert result["wheels"][0]["base"] is None
    assert result["conclusion"] == "neutral"
    assert "### ⚪ Wheel size: not checked" in markdown and "✅" not in markdown
    lines = [line for line in markdown.splitlines() if "merge base could not be found" in line]
    assert len(lines) == 1  # one clear line


def _compares(fake: FakeGitHub, main: Main) -> PyGithubCompares:
    fake.add_repo("pytorch/pytorch", git_dir=main.root)
    return PyGithubCompares(connect(fake.token, fake.url, retry=FAST), "pytorch/pytorch")


@pytest.mark.parametrize("nights", [1, 2, 7, 40])
def test_every_position_is_found_within_the_documented_requests(
    fake_github: FakeGitHub, tmp_path: Path, main_history: Main, nights: int
) -> None:
    """Each night's base (and each commit after it, up to the next) finds that night; the
    requests are at most 2 + ceil(log2(nights)) compares plus the merge base's."""
    World(fake_github, tmp_path, main_history, range(nights))
    stored = stored_nights(load_history(DirectoryStore(tmp_path / "history")))
    assert len(stored) == nights
    compares = _compares(fake_github, main_history)
    bound = 1 + 2 + max(0, (nights - 1).bit_length())
    for index in sorted({*range(0, nights, 6), nights - 1}):
        day = FIRST + dt.timedelta(days=index)
        for offset, commit in enumerate(main_history.by_day[day]):
            choice: NightChoice = nearest_night(compares, stored, base_ref=commit, head_sha=commit)
            assert (choice.date, choice.commits_before) == (day, offset)
            assert choice.requests <= bound


def test_action_input_compare_with(
    fake_github: FakeGitHub, tmp_path: Path, main_history: Main
) -> None:
    from action_runner import read_outputs, run_action, runner_env

    world = World(fake_github, tmp_path / "world", main_history, range(DAYS))
    number = world.pr(main_history.by_day[FIRST + dt.timedelta(days=12)][1], "action")
    workspace = tmp_path / "workspace"
    torch_wheel(workspace / "dist", "2.11.0.dev20260210+cu128")
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"pull_request": {"number": number, "body": "A change."}}))
    inputs = {
        "check-wheels": "dist/*.whl", "history-dir": str(world.history),
        "check-max-download-mb": "0", "check-comment": "false", "pr-number": str(number),
        "compare-with": "sideways",
    }  # fmt: skip
    extra = {"GITHUB_EVENT_PATH": str(event)}
    done = run_action(
        runner_env(fake_github, tmp_path, inputs, extra=extra, action="check"), "check"
    )
    assert done.returncode == 2
    assert "input compare-with must be merge-base or newest (or empty), not 'sideways'" in (
        done.stdout
    )
    inputs["compare-with"] = "merge-base"
    done = run_action(
        runner_env(fake_github, tmp_path, inputs, extra=extra, action="check"), "check"
    )
    assert done.returncode == 0, done.stdout + done.stderr
    outputs = read_outputs(tmp_path / "output")
    result = json.loads((workspace / outputs["check-json-path"]).read_text())
    assert result["compared_with"]["date"] == "2026-01-13"
    assert result["compared_with"]["commits_before_merge_base"] == 1
    assert "compared with the nightly of 2026-01-13" in (tmp_path / "summary").read_text()


def test_explicit_merge_base_without_a_pull_request_says_so(
    fake_github: FakeGitHub, tmp_path: Path, main_history: Main
) -> None:
    world = World(fake_github, tmp_path, main_history, range(3))
    out = tmp_path / "c.json"
    done = run_main(
        [
            "check", str(tmp_path / "pr"), "--history", str(world.history), "--no-comment",
            "--compare-with", "merge-base", "--json", str(out),
        ],
        env=fake_github.env(),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    chosen = json.loads(out.read_text())["compared_with"]
    assert chosen["fallback"] == "the merge base is unknown: no pull request (pr-number)"
    assert "not checked: the merge base is unknown: no pull request (pr-number)" in done.stderr


def test_pr_on_a_failed_nightly_day_is_checked_against_the_night_before(
    github_world: FakeGitHub, tmp_path: Path, main_history: Main
) -> None:
    # Issue 29 item 2: before, "nothing to compare" and exit 0 although Jan 5 has the wheel.
    world = World(github_world, tmp_path, main_history, range(DAYS), failed=frozenset({5}))
    merge_base = main_history.by_day[FIRST + dt.timedelta(days=5)][2]  # Jan 6, 17h
    result, markdown = world.job(world.pr(merge_base, "failed-night"))
    assert result["compared_with"]["date"] == "2026-01-06"  # the merge base's night
    [wheel] = result["wheels"]
    assert wheel["base"]["date"] == "2026-01-05"  # the night before, which has the wheel
    assert wheel["base"]["size_bytes"] == round(104.0 * 1_048_576)
    # Jan 5's base is its first commit: its 9h and 17h commits, then Jan 6's three.
    note = (
        "the nightly of 2026-01-06 (the merge base's) has no artifact manywheel-py3_12-cuda12_8; "
        "compared with the nightly of 2026-01-05, the nearest earlier one that has it "
        f"(5 commits before this PR's merge base {merge_base[:7]})"
    )
    assert wheel["notes"] == [note] and note in markdown
    assert result["conclusion"] == "success"


def test_failed_night_with_no_earlier_night_is_not_checked(
    github_world: FakeGitHub, tmp_path: Path, main_history: Main
) -> None:
    world = World(github_world, tmp_path, main_history, range(5, DAYS), failed=frozenset({5}))
    merge_base = main_history.by_day[FIRST + dt.timedelta(days=5)][1]
    result, markdown = world.job(world.pr(merge_base, "first-night"))
    [wheel] = result["wheels"]
    assert wheel["base"] is None
    assert wheel["notes"] == [
        "the nightly of 2026-01-06 (the merge base's) has no artifact manywheel-py3_12-cuda12_8, "
        "nor does any earlier stored nightly: not checked"
    ]
    assert result["conclusion"] == "neutral" and "✅" not in markdown
