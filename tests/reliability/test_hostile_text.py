"""Injection (issue 7, item 4): text from GitHub and from action inputs stays inert.

Commit titles, bodies, file names and artifact names come from people and builds we do not
control. Copied into an issue they must not ping anyone, back-reference pull requests, close
issues, forge our hidden markers or inject HTML; in the dashboard they must be escaped. Action
inputs are never handed to a shell.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from conftest import REPO_ROOT
from fakegithub import FakeGitHub
from regression_world import Change, build_world
from wheel_size.cli.main import main
from wheel_size.regressions.issue_sync import event_from_marker
from wheel_size.regressions.series import MB

ZWJ = "\u200d"
FORGED = (
    "<!-- wheel-size-action:event=jump/cpu/2025-10-11 before=2025-10-10:1 after=2025-10-11:2 -->"
)
HOSTILE_TITLE = (
    f"Add Half kernels @pytorch/release-team fixes #4242 {FORGED} <script>alert(1)</script> (#101)"
)
HOSTILE_BODY = "cc @octocat\n\nFixes https://github.com/pytorch/pytorch/issues/999 and GH-77"
HOSTILE_FILE = "aten/src/ATen/native/cuda/<img src=x onerror=alert(1)>.cuh"
HOSTILE_ARTIFACT = "manywheel-py3_12-cuda12_8<img src=x onerror=alert(2)>"


def make_world(tmp_path: Path, fake: FakeGitHub) -> None:
    changes = [Change(f"base {i}", {"README.md": f"{i}\n"}) for i in range(3)]
    changes.append(Change(f"{HOSTILE_TITLE}\n\n{HOSTILE_BODY}", {HOSTILE_FILE: "k\n"}))
    nights = [("2025-10-09", 1, None), ("2025-10-10", 2, None), ("2025-10-11", 3, None)]
    world = build_world(tmp_path / "git", changes, nights)
    repo = fake.add_repo("pytorch/pytorch", git_dir=world.path)
    wf = repo.add_workflow(21257348, "linux-binary-manywheel")
    sizes = {"2025-10-09": 855.2, "2025-10-10": 855.3, "2025-10-11": 859.6}
    for day, mb in sizes.items():
        run = wf.add_run(
            created_at=f"{day}T07:30:00Z",
            head_sha=world.nightly[day],
            message=f"{day} nightly release ({world.bases[day]})",
        )
        run.add_artifact("manywheel-py3_12-cuda12_8", size_in_bytes=round(mb * MB))
        run.add_artifact(HOSTILE_ARTIFACT, size_in_bytes=round(mb * MB))


def test_api_text_is_inert_in_issues_and_dashboard(
    fake_github: FakeGitHub,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    make_world(tmp_path, fake_github)
    for name, value in fake_github.env().items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("WHEEL_SIZE_GITHUB_RETRY", "total=1,backoff=0,between_writes=0")
    history = tmp_path / "h"
    args = ["track", "--repo", "pytorch/pytorch", "--workflow", "21257348", "--branch", "nightly"]
    args += ["--history", str(history), "--variant", "cuda12_8", "--create-issues", "--no-evidence"]
    args += ["--dashboard"]
    for night in ("2025-10-09", "2025-10-10", "2025-10-11"):
        assert main([*args, "--date", night]) == 0, capsys.readouterr().err
    (issue,) = fake_github.repo("pytorch/pytorch").issues
    body = issue.body or ""
    assert "Add Half kernels" in body  # the commit is listed …
    # … but nobody is pinged, no PR or issue gets a back-reference or is closed,
    assert re.search(r"(?<![\w])@(?=[A-Za-z0-9])", body) is None, "a live @mention"
    assert re.search(r"#\d", body) is None, "a live #reference"
    assert "https://github.com/pytorch/pytorch/issues/999" not in body
    # … no HTML gets through, and the only marker is our own, on the first line.
    assert "<script" not in body and "<img" not in body
    markers = [ln for ln in body.splitlines() if "<!--" in ln]
    assert len(markers) == 1 and body.startswith(markers[0])
    event = event_from_marker(body)
    assert event is not None and event.variant == "cuda12_8"
    assert issue.title.startswith("Wheel size: cuda12_8")
    # The dashboard escapes the hostile artifact name.
    html = next(history.rglob("index.html")).read_text()
    assert "<img src=x" not in html
    assert "onerror=alert(2)" not in html or "&lt;img" in html


def test_no_shell_anywhere_in_the_package() -> None:
    """Inputs reach subprocesses only as argument lists: no shell=True, os.system, popen."""
    offenders = []
    for path in (REPO_ROOT / "src").rglob("*.py"):
        text = path.read_text()
        for pattern in (
            r"shell\s*=\s*True",
            r"\bos\.system\(",
            r"\bos\.popen\(",
            r"commands\.getoutput",
        ):
            if re.search(pattern, text):
                offenders.append(f"{path.relative_to(REPO_ROOT)}: {pattern}")
    assert offenders == []


def test_action_inputs_do_not_reach_a_shell(fake_github: FakeGitHub, tmp_path: Path) -> None:
    """Shell syntax in every text input of the action is taken literally (and refused)."""
    import yaml

    from action_runner import run_entrypoint, runner_env

    action = yaml.safe_load((REPO_ROOT / "action.yml").read_text())
    canary = tmp_path / "pwned"
    payload = f"$(touch {canary}); touch {canary} `touch {canary}` | touch {canary}"
    env = runner_env(fake_github, tmp_path, {}, extra={"PATH": "/usr/local/bin:/usr/bin:/bin"})
    tried = 0
    for key, spec in action["inputs"].items():
        default = str(spec.get("default", ""))
        if default in ("true", "false") or key == "github-token":
            continue
        run_entrypoint({**env, f"INPUT_{key.upper()}": payload})
        tried += 1
        assert not canary.exists(), f"input {key} reached a shell"
    assert tried >= 10
