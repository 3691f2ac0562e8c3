"""``wheel-size track`` under injected GitHub faults (issue 7, item 1).

Every case runs the nightly job against the fake server with one fault kind at one place
(the run listing, or an artifact listing in the middle of the job) and checks the contract:
either the job finishes and the stored history equals a clean run's, or it fails loudly —
exit status 2, one ``wheel-size: error:`` line — and whatever is stored is complete (no torn
or temporary files, nothing that differs from the clean run). Afterwards a clean re-run
converges to the clean history. docs/reliability.md quotes the counts.
"""

from __future__ import annotations

import datetime as dt
import json
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from fakegithub import FakeGitHub
from nightly_world import WORKFLOW_ID, add_night, add_world
from wheel_size.cli.main import main

NIGHTS = [dt.date(2025, 10, d) for d in range(1, 9)]
# Short waits so the suite stays fast; production defaults are in RetryPolicy.
# The client gives up after 3 s; an injected stall lasts 6 s: both far from what a loaded
# machine takes to answer an ordinary request of the fake.
RETRY = "total=3,backoff=0,max_wait=5,secondary_wait=0.05,between_writes=0,timeout=3"
RUNS = r"/actions/workflows/\d+/runs$"
ARTIFACTS = r"/actions/runs/\d+/artifacts$"

Inject = Callable[[FakeGitHub, str], Any]

# name -> (inject(fake, path_regex), expected outcome: SURVIVE, FAIL or EITHER)
SURVIVE, FAIL, EITHER = "survive", "fail", "either"
FAULTS: dict[str, tuple[Inject, str]] = {
    "500-once": (lambda f, p: f.fail("GET", p, 500, skip=_skip(p)), SURVIVE),
    "502-twice": (lambda f, p: f.fail("GET", p, 502, times=2, skip=_skip(p)), SURVIVE),
    "503-always": (lambda f, p: f.fail("GET", p, 503, times=None, skip=_skip(p)), FAIL),
    "reset-once": (lambda f, p: f.fail("GET", p, reset=True, skip=_skip(p)), SURVIVE),
    "reset-always": (lambda f, p: f.fail("GET", p, reset=True, times=None, skip=_skip(p)), FAIL),
    "timeout-once": (lambda f, p: f.fail("GET", p, None, delay=6.0, skip=_skip(p)), SURVIVE),
    "truncated-json": (lambda f, p: f.fail("GET", p, None, truncate=True, skip=_skip(p)), EITHER),
    "secondary-403-retry-after": (
        lambda f, p: f.fail_secondary_rate_limit("GET", p, skip=_skip(p), retry_after=1),
        SURVIVE,
    ),
    "secondary-403-no-retry-after": (
        lambda f, p: f.fail_secondary_rate_limit("GET", p, skip=_skip(p)),
        SURVIVE,
    ),
    "secondary-429-retry-after": (
        lambda f, p: f.fail_secondary_rate_limit(
            "GET", p, skip=_skip(p), status=429, retry_after=1
        ),
        SURVIVE,
    ),
    "secondary-429-no-retry-after": (
        lambda f, p: f.fail_secondary_rate_limit("GET", p, skip=_skip(p), status=429),
        SURVIVE,
    ),
    "primary-403-short-reset": (
        lambda f, p: f.fail_primary_rate_limit("GET", p, skip=_skip(p), reset_in=1),
        SURVIVE,
    ),
    "primary-429-short-reset": (
        lambda f, p: f.fail_primary_rate_limit("GET", p, skip=_skip(p), reset_in=1, status=429),
        SURVIVE,
    ),
    "primary-403-reset-in-an-hour": (
        lambda f, p: f.fail_primary_rate_limit("GET", p, skip=_skip(p), reset_in=3600),
        FAIL,
    ),
    "secondary-always": (
        lambda f, p: f.fail_secondary_rate_limit(
            "GET", p, skip=_skip(p), times=None, retry_after=0
        ),
        FAIL,
    ),
}


def _skip(path: str) -> int:
    """Artifact-listing faults strike in the middle of the job, after 3 nights went fine."""
    return 3 if path == ARTIFACTS else 0


def build_world(fake: FakeGitHub) -> None:
    wf = add_world(fake)
    for day in NIGHTS:
        add_night(wf, day, {"cuda12_8": 4.0} if day.day >= 5 else None)


def track_args(history: Path) -> list[str]:
    first, last = NIGHTS[0].isoformat(), NIGHTS[-1].isoformat()
    return [
        "track",
        "--repo", "pytorch/pytorch",
        "--workflow", str(WORKFLOW_ID),
        "--from", first,
        "--to", last,
        "--history", str(history),
    ]  # fmt: skip


def snapshot(root: Path) -> dict[str, Any]:
    """Every file under ``root`` parsed; ``collected_at`` (wall clock) left out."""
    files: dict[str, Any] = {}
    if not root.exists():
        return files
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        text = path.read_text()
        if path.suffix == ".json":
            data = json.loads(text)  # a torn file fails here
            if isinstance(data, dict):
                data.pop("collected_at", None)
            files[str(path.relative_to(root))] = data
        else:
            files[str(path.relative_to(root))] = text
    return files


def run_track(
    fake: FakeGitHub,
    history: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> tuple[int, str]:
    for name, value in {**fake.env(), "WHEEL_SIZE_GITHUB_RETRY": RETRY}.items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("GITHUB_REPOSITORY", raising=False)
    capsys.readouterr()
    code = main(track_args(history))
    return code, capsys.readouterr().err


@pytest.fixture(scope="module")
def clean_history(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    history = tmp_path_factory.mktemp("clean") / "h"
    with FakeGitHub() as fake, pytest.MonkeyPatch.context() as mp:
        build_world(fake)
        for name, value in {**fake.env(), "WHEEL_SIZE_GITHUB_RETRY": RETRY}.items():
            mp.setenv(name, value)
        assert main(track_args(history)) == 0
    files = snapshot(history)
    assert len([f for f in files if f.startswith("runs/")]) == len(NIGHTS)
    return files


@pytest.mark.parametrize("where", ["runs-listing", "artifacts-mid-job"])
@pytest.mark.parametrize("fault", sorted(FAULTS))
def test_track_survives_or_fails_loudly(
    fault: str,
    where: str,
    clean_history: dict[str, Any],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    inject, expected = FAULTS[fault]
    history = tmp_path / "h"
    with FakeGitHub() as fake:
        build_world(fake)
        injected = inject(fake, RUNS if where == "runs-listing" else ARTIFACTS)
        code, err = run_track(fake, history, monkeypatch, capsys)
        assert injected.hits >= 1, "the fault never fired"
        after = snapshot(history)
        if code == 0:
            assert expected != FAIL, f"{fault}: the job cannot have succeeded: {err}"
            assert after == clean_history
        else:
            assert code == 2, err
            lines = [ln for ln in err.splitlines() if ln.startswith("wheel-size: error:")]
            assert len(lines) == 1, err
            assert "Traceback" not in err
            assert expected != SURVIVE, f"{fault} should be survived: {err}"
            # Loud failure: whatever exists is complete and equal to the clean run's files.
            for name, data in after.items():
                assert clean_history.get(name) == data, name
            assert not [p for p in history.rglob("*") if ".tmp" in p.name or p.name.startswith(".")]
        # The next clean run converges to the clean history.
        fake.clear_faults()
        code, err = run_track(fake, history, monkeypatch, capsys)
        assert code == 0, err
        assert snapshot(history) == clean_history


def test_data_branch_under_faults_is_never_half_written(
    clean_history: dict[str, Any],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The same contract on a real git data branch: a failed job pushes nothing."""
    remote = tmp_path / "data.git"
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
    with FakeGitHub() as fake:
        build_world(fake)
        fake.fail("GET", ARTIFACTS, 503, times=None, skip=3)
        for name, value in {**fake.env(), "WHEEL_SIZE_GITHUB_RETRY": RETRY}.items():
            monkeypatch.setenv(name, value)
        args = [
            a
            for a in track_args(tmp_path / "unused")
            if a not in ("--history", str(tmp_path / "unused"))
        ]
        args += ["--data-branch", "wheel-size-data", "--data-remote", str(remote)]
        capsys.readouterr()
        assert main(args) == 2
        assert "wheel-size: error:" in capsys.readouterr().err
        refs = subprocess.run(
            ["git", "--git-dir", str(remote), "for-each-ref"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        assert refs == ""  # nothing pushed
        fake.clear_faults()
        assert main(args) == 0
        listing = subprocess.run(
            ["git", "--git-dir", str(remote), "ls-tree", "-r", "--name-only", "wheel-size-data"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.split()
        assert sorted(n for n in listing if n.startswith("runs/")) == sorted(
            n for n in clean_history if n.startswith("runs/")
        )
