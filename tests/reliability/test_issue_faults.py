"""``wheel-size track --create-issues`` under injected GitHub faults (issue 7, item 1).

Four nights (10-09 … 10-12): cuda12_8 jumps on 10-11 (one issue) and rolls back on 10-12
(one comment, the issue closed). Each case injects one fault into the issue traffic of one
night — lost answers after GitHub stored the write included — and checks the contract:
the faulted run either ends exactly like a clean run (history and issues), or fails loudly
(exit 2, one ``wheel-size: error:`` line) with the history stored; a re-run then converges
to the clean state. No case may ever leave a duplicate issue or comment.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from fakegithub import FakeGitHub
from regression_world import make_nightly_repo
from wheel_size.cli.main import main

NIGHTS = ["2025-10-09", "2025-10-10", "2025-10-11", "2025-10-12"]
# The client gives up after 3 s; an injected stall lasts 6 s: both far from what a loaded
# machine takes to answer an ordinary request of the fake.
RETRY = "total=3,backoff=0,max_wait=5,secondary_wait=0.05,between_writes=0,timeout=3"
CREATE = r"/repos/pytorch/pytorch/issues$"
COMMENT = r"/repos/pytorch/pytorch/issues/\d+/comments$"
CLOSE = r"/repos/pytorch/pytorch/issues/\d+$"
COMPARE = r"/repos/pytorch/pytorch/compare/"
COMMIT = r"/repos/pytorch/pytorch/commits/"

# name -> (night it strikes, method, path, fail() keyword arguments or a helper name)
FAULTS: dict[str, tuple[str, str, str, dict[str, Any]]] = {
    "create-502-lost-answer": ("2025-10-11", "POST", CREATE, {"status": 502, "after": True}),
    "create-502-refused": ("2025-10-11", "POST", CREATE, {"status": 502}),
    "create-504-twice-lost": (
        "2025-10-11",
        "POST",
        CREATE,
        {"status": 504, "after": True, "times": 2},
    ),
    "create-reset-lost-answer": ("2025-10-11", "POST", CREATE, {"reset": True, "after": True}),
    "create-reset-refused": ("2025-10-11", "POST", CREATE, {"reset": True}),
    "create-timeout-lost-answer": (
        "2025-10-11",
        "POST",
        CREATE,
        {"status": None, "delay": 6.0, "after": True},
    ),
    "create-truncated-answer": (
        "2025-10-11",
        "POST",
        CREATE,
        {"status": None, "truncate": True, "after": True},
    ),
    "create-503-always": ("2025-10-11", "POST", CREATE, {"status": 503, "times": None}),
    "create-secondary-403-retry-after": (
        "2025-10-11",
        "POST",
        CREATE,
        {"secondary": 403, "retry_after": 1},
    ),
    "create-secondary-403": ("2025-10-11", "POST", CREATE, {"secondary": 403}),
    "create-secondary-429": ("2025-10-11", "POST", CREATE, {"secondary": 429}),
    "create-primary-403": ("2025-10-11", "POST", CREATE, {"primary": 403}),
    "compare-502": ("2025-10-11", "GET", COMPARE, {"status": 502}),
    "compare-503-always": ("2025-10-11", "GET", COMPARE, {"status": 503, "times": None}),
    "compare-truncated": ("2025-10-11", "GET", COMPARE, {"status": None, "truncate": True}),
    "commit-reset": ("2025-10-11", "GET", COMMIT, {"reset": True}),
    "commit-truncated": ("2025-10-11", "GET", COMMIT, {"status": None, "truncate": True}),
    "list-502": ("2025-10-11", "GET", CREATE, {"status": 502}),
    "list-reset": ("2025-10-11", "GET", CREATE, {"reset": True}),
    "list-truncated": ("2025-10-11", "GET", CREATE, {"status": None, "truncate": True}),
    "comment-502-lost-answer": ("2025-10-12", "POST", COMMENT, {"status": 502, "after": True}),
    "comment-502-refused": ("2025-10-12", "POST", COMMENT, {"status": 502}),
    "comment-reset-lost-answer": ("2025-10-12", "POST", COMMENT, {"reset": True, "after": True}),
    "comment-timeout-lost-answer": (
        "2025-10-12",
        "POST",
        COMMENT,
        {"status": None, "delay": 6.0, "after": True},
    ),
    "comment-secondary-429": ("2025-10-12", "POST", COMMENT, {"secondary": 429}),
    "close-502-lost-answer": ("2025-10-12", "PATCH", CLOSE, {"status": 502, "after": True}),
    "close-502-refused": ("2025-10-12", "PATCH", CLOSE, {"status": 502}),
    "close-reset-refused": ("2025-10-12", "PATCH", CLOSE, {"reset": True}),
}


def inject(fake: FakeGitHub, method: str, path: str, spec: dict[str, Any]) -> object:
    spec = dict(spec)
    if "secondary" in spec:
        return fake.fail_secondary_rate_limit(
            method, path, status=spec["secondary"], retry_after=spec.get("retry_after")
        )
    if "primary" in spec:
        return fake.fail_primary_rate_limit(method, path, status=spec["primary"], reset_in=1)
    return fake.fail(method, path, **spec)


def track(
    fake: FakeGitHub, history: Path, night: str, capsys: pytest.CaptureFixture[str]
) -> tuple[int, str]:
    args = ["track", "--repo", "pytorch/pytorch", "--workflow", "21257348", "--branch", "nightly"]
    args += ["--history", str(history), "--date", night, "--variant", "cuda12_8"]
    args += ["--create-issues", "--no-evidence", "--close-on-rollback"]
    capsys.readouterr()
    code = main(args)
    return code, capsys.readouterr().err


def state(fake: FakeGitHub, history: Path) -> dict[str, Any]:
    """Issues, comments and stored history, without wall-clock fields or the temporary
    history path (the issue's reproduce command names it)."""
    repo = fake.repo("pytorch/pytorch")

    def text(body: str | None) -> str | None:
        if body is None:
            return None
        # The run marker names the run that opened the issue (issue 32): one per run.
        return re.sub(
            r"run=[0-9a-f]+ -->", "run=<run> -->", body.replace(str(history), "<history>")
        )

    runs = {}
    for path in sorted((history / "runs").rglob("*.json")):
        data = json.loads(path.read_text())
        data.pop("collected_at", None)
        runs[str(path.relative_to(history))] = data
    return {
        "issues": [
            (i.number, i.title, text(i.body), sorted(i.label_names), i.state, i.state_reason)
            for i in repo.issues
        ],
        "comments": [(c.issue.number, text(c.body)) for c in repo.comments],
        "runs": runs,
    }


@pytest.fixture
def env(monkeypatch: pytest.MonkeyPatch, fake_github: FakeGitHub) -> FakeGitHub:
    for name, value in {**fake_github.env(), "WHEEL_SIZE_GITHUB_RETRY": RETRY}.items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("GITHUB_REPOSITORY", raising=False)
    return fake_github


@pytest.fixture(scope="module")
def clean(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    """The state after each night of a run without faults."""
    tmp = tmp_path_factory.mktemp("clean")
    states = {}
    with FakeGitHub() as fake, pytest.MonkeyPatch.context() as mp:
        for name, value in {**fake.env(), "WHEEL_SIZE_GITHUB_RETRY": RETRY}.items():
            mp.setenv(name, value)
        make_nightly_repo(tmp, fake)
        args = [
            "track",
            "--repo",
            "pytorch/pytorch",
            "--workflow",
            "21257348",
            "--branch",
            "nightly",
        ]
        args += ["--history", str(tmp / "h"), "--variant", "cuda12_8"]
        args += ["--create-issues", "--no-evidence", "--close-on-rollback"]
        for night in NIGHTS:
            assert main([*args, "--date", night]) == 0
            states[night] = state(fake, tmp / "h")
    final = states[NIGHTS[-1]]
    assert len(final["issues"]) == 1 and len(final["comments"]) == 1
    assert final["issues"][0][4] == "closed"
    return states


@pytest.mark.parametrize("fault", sorted(FAULTS))
def test_issue_writes_under_faults(
    fault: str,
    clean: dict[str, dict[str, Any]],
    env: FakeGitHub,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    fake = env
    night, method, path, spec = FAULTS[fault]
    make_nightly_repo(tmp_path, fake)
    history = tmp_path / "h"
    for earlier in NIGHTS[: NIGHTS.index(night)]:
        assert track(fake, history, earlier, capsys)[0] == 0
    injected = inject(fake, method, path, spec)
    code, err = track(fake, history, night, capsys)
    assert injected.hits >= 1, "the fault never fired"  # type: ignore[attr-defined]
    now = state(fake, history)
    issues = fake.repo("pytorch/pytorch").issues
    assert len(issues) <= 1, f"duplicate issues: {[i.title for i in issues]}"
    assert len(fake.repo("pytorch/pytorch").comments) <= 1, "duplicate comments"
    if code == 0:
        assert now == clean[night], err
    else:
        assert code == 2, err
        errors = [ln for ln in err.splitlines() if ln.startswith("wheel-size: error:")]
        assert len(errors) == 1 and "Traceback" not in err, err
        assert now["runs"] == clean[night]["runs"]  # the history is stored before issues
    fake.clear_faults()
    code, err = track(fake, history, night, capsys)
    assert code == 0, err
    assert state(fake, history) == clean[night]
