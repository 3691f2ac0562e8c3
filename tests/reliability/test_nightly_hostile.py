"""The nightly survives what it reads (issue 10, item 4), end to end: the Action entrypoint
and the CLI run ``track --create-issues`` against the fake GitHub with a real git data branch.

* A bzip2 bomb served as the jump night's wheel: the issue is still opened, saying
  "Evidence unavailable: <reason>"; exit 0; outputs and step summary written.
* Records planted on the data branch (deep nesting, a lone surrogate, a 300-digit run id,
  not UTF-8): the next nightly names and skips them (a warning annotation and a summary
  section), stores the new night, and leaves the planted files exactly as they were.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from action_runner import parse_outputs, run_action, runner_env
from cli_runner import run_main
from evidence.hostile_artifacts import bomb_artifact, good_artifact
from fakegithub import FakeGitHub
from history_factory import run
from regression_world import SIZES, Change, build_world
from wheel_size.history.model import run_to_json
from wheel_size.units import MB

ARTIFACT = "manywheel-py3_12-cuda12_8"
NIGHTS = ("2025-10-09", "2025-10-10", "2025-10-11")


def _record(day: str, run_id: int, **fields: str) -> bytes:
    """A valid stored record, then the planted flaw written into its text."""
    text = run_to_json(run(day, {"cuda12_8": 1.0}, run_id=run_id))
    for old, new in fields.items():
        text = text.replace(old, new)
    return text.encode()


PLANTED = {
    # path on the data branch -> content, and what the warning must say about it
    "runs/2025/10/2025-10-11/999.json": (b"[" * 100_000 + b"]" * 100_000, "nested too deeply"),
    "runs/2025/10/2025-10-10/998.json": (
        _record("2025-10-10", 998, **{'"title": "': '"title": "\\ud800'}),
        "lone surrogate",
    ),
    "runs/2025/10/2025-10-10/997.json": (
        _record("2025-10-10", 997, **{'"run_id": 997': '"run_id": ' + "9" * 300}),
        "out of range",
    ),
    "runs/2025/10/2025-10-09/996.json": (b"\xff\xfe{not utf-8}", "not UTF-8"),
}


def _world(tmp_path: Path, fake: FakeGitHub) -> None:
    """pytorch/pytorch whose cuda12_8 wheel grows 4.3 MB on 2025-10-11; that night's
    artifact is a bzip2 bomb (256 MiB of zeros in a few hundred bytes, size declared 1 KiB)."""
    changes = [Change(f"base {i}", {"README.md": f"{i}\n"}) for i in range(3)]
    changes += [Change("Add Half reduce kernels (#101)", {"aten/src/R.cuh": "k\n"})]
    bases = {"2025-10-09": 1, "2025-10-10": 2, "2025-10-11": 3, "2025-10-12": 3}
    world = build_world(tmp_path / "git", changes, [(d, i, None) for d, i in bases.items()])
    repo = fake.add_repo("pytorch/pytorch", git_dir=world.path)
    wf = repo.add_workflow(21257348, "linux-binary-manywheel")
    for day in (*NIGHTS, "2025-10-12"):
        version = f"2.10.0.dev{day.replace('-', '')}+cu128"
        folder = tmp_path / "art" / day
        art = (
            bomb_artifact(folder, version, inflated_mb=256, lie=True)
            if day == "2025-10-11"
            else good_artifact(folder, version)
        )
        run = wf.add_run(created_at=f"{day}T07:30:00Z", head_sha=world.nightly[day],
                         message=f"{day} nightly release ({world.bases[day]})")  # fmt: skip
        mb = SIZES[day]["cuda12_8"]
        run.add_artifact(ARTIFACT, size_in_bytes=round(mb * MB), content=art.read_bytes())


def _bare(tmp_path: Path) -> Path:
    remote = tmp_path / "data.git"
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
    return remote


def _git(*args: str, cwd: Path) -> str:
    env = {"GIT_AUTHOR_NAME": "x", "GIT_AUTHOR_EMAIL": "x@x", "GIT_COMMITTER_NAME": "x",
           "GIT_COMMITTER_EMAIL": "x@x", "PATH": "/usr/bin:/bin"}  # fmt: skip
    return subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True,
                          check=True).stdout  # fmt: skip


def _plant(remote: Path, tmp_path: Path) -> None:
    """Someone with push access plants broken records on the data branch."""
    clone = tmp_path / "planter"
    _git("clone", "-q", "-b", "wheel-size-data", str(remote), str(clone), cwd=tmp_path)
    for rel, (content, _) in PLANTED.items():
        (clone / rel).parent.mkdir(parents=True, exist_ok=True)
        (clone / rel).write_bytes(content)
    _git("add", "-A", cwd=clone)
    _git("commit", "-q", "-m", "plant", cwd=clone)
    _git("push", "-q", "origin", "wheel-size-data", cwd=clone)


def _branch(remote: Path, rel: str | None = None) -> list[str] | bytes:
    if rel is not None:
        return subprocess.run(["git", "--git-dir", str(remote), "show", f"wheel-size-data:{rel}"],
                              capture_output=True, check=True).stdout  # fmt: skip
    tree = ["git", "--git-dir", str(remote), "ls-tree", "-r", "--name-only", "wheel-size-data"]
    out = subprocess.run(tree, capture_output=True, text=True, check=True)
    return out.stdout.split()


def _nightly(mode: str, fake: FakeGitHub, tmp_path: Path, remote: Path, days: tuple[str, str],
             run: int) -> tuple[int, str, str, dict[str, str], str]:  # fmt: skip
    """One nightly; returns exit status, stdout, stderr, outputs, step summary."""
    output, summary = tmp_path / f"output{run}", tmp_path / f"summary{run}"
    if mode == "action":
        inputs = {"workflow": "21257348", "variants": "cuda12_8", "from": days[0], "to": days[1],
                  "data-remote": str(remote), "create-issues": "true", "evidence": "true",
                  "evidence-memory-mb": "128"}  # fmt: skip
        env = runner_env(fake, tmp_path, inputs)
        env.update({"GITHUB_OUTPUT": str(output), "GITHUB_STEP_SUMMARY": str(summary)})
        res = run_action(env)
    else:
        args = ["track", "--repo", "pytorch/pytorch", "--workflow", "21257348", "--branch",
                "nightly", "--variant", "cuda12_8", "--from", days[0], "--to", days[1],
                "--data-remote", str(remote), "--create-issues"]  # fmt: skip
        args += ["--evidence-memory-mb", "128"]
        env = {**fake.env(), "GITHUB_ACTIONS": "true", "GITHUB_OUTPUT": str(output),
               "GITHUB_STEP_SUMMARY": str(summary), "HOME": str(tmp_path)}  # fmt: skip
        res = run_main(args, env=env)
    outputs = parse_outputs(output.read_text()) if output.exists() else {}
    text = summary.read_text() if summary.exists() else ""
    return res.returncode, res.stdout, res.stderr, outputs, text


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["action", "cli"])
def test_nightly_with_a_bomb_artifact_and_planted_records(
    fake_github: FakeGitHub, tmp_path: Path, mode: str
) -> None:
    _world(tmp_path, fake_github)
    remote = _bare(tmp_path)

    # Night of the jump: its artifact is the bomb.
    code, out, err, outputs, summary = _nightly(mode, fake_github, tmp_path, remote,
                                                ("2025-10-10", "2025-10-11"), 1)  # fmt: skip
    assert code == 0, out + err
    assert "Traceback" not in out + err
    (issue,) = fake_github.repo("pytorch/pytorch").issues
    body = issue.body or ""
    assert "### Wheel contents" in body
    section = body.split("### Wheel contents", 1)[1]
    assert "Evidence unavailable: " in section
    # the memory budget, or (once the archive reader refuses bzip2) the reader, stops the bomb
    assert any(s in section for s in ("memory budget of 128 MB", "bzip2", "compression"))
    assert "Add Half reduce kernels" in body  # the rest of the issue is all there
    # The CLI inside a workflow and the Action write the same outputs (action.yml's names).
    assert outputs["issues-created"] == str(issue.number)
    assert outputs["collected-runs"] == "2"
    assert "### Significant jumps" in summary
    stored = [f for f in _branch(remote) if str(f).startswith("runs/")]
    assert len(stored) == 2

    # Someone plants broken records; the next night must still be stored.
    _plant(remote, tmp_path)
    code, out, err, outputs, summary = _nightly(mode, fake_github, tmp_path, remote,
                                                ("2025-10-12", "2025-10-12"), 2)  # fmt: skip
    assert code == 0, out + err
    assert "Traceback" not in out + err
    warnings = [ln for ln in out.splitlines() if ln.startswith("::warning title=wheel-size record")]
    assert len(warnings) == len(PLANTED)  # each file once, though the night reads it often
    lines = [ln for ln in err.splitlines() if ln.startswith("wheel-size: warning: ")]
    assert "### Stored records skipped" in summary
    for rel, (_, problem) in PLANTED.items():
        assert any(rel in w and problem in w for w in warnings), (rel, warnings)
        assert any(rel in ln and problem in ln and ln.endswith("(skipped)") for ln in lines)
        assert f"| `{rel}` |" in summary
    files = _branch(remote)
    assert any(str(f).startswith("runs/2025/10/2025-10-12/") for f in files)  # stored
    for rel, (content, _) in PLANTED.items():
        assert _branch(remote, rel) == content  # left exactly as planted
