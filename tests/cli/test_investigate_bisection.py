"""Issue 28 item 3 in the issue: the builds of a bisection (``wheel-size bisect --state``,
or the nightly action's ``bisections/``) join the window's builds, so a pending bisection
is what the verdict says ("the step lies between X and Y (N commits); building …") and a
settled one's culprit is the CONFIRMED verdict — the status set in one place."""

from __future__ import annotations

import json
from pathlib import Path

from test_investigate_cli import make_world, store_history

from cli_runner import run_main
from fakegithub import FakeGitHub
from wheel_size.bisect.state import Build, Event, State, save_state

MB = 1 << 20
EVENT = Event(
    "pytorch/pytorch", "", "2025-10-11", "cuda12_8", "py3_12", "build.yml",
    "dispatch:sha@main", "manywheel-py3_12-cuda12_8",
)  # fmt: skip


def _build(sha: str, size: float | None, run_id: int) -> Build:
    if size is None:  # in flight
        return Build(sha, 2, 1, "2025-10-11T09:00:00Z", 0.0, "running", run_id)
    return Build(sha, 1, 1, "2025-10-11T08:00:00Z", 0.0, "completed", run_id,
                 f"https://github.com/pytorch/pytorch/actions/runs/{run_id}",
                 conclusion="success", size_bytes=int(size * MB))  # fmt: skip


def _investigate(tmp_path: Path, fake: FakeGitHub, builds: list[Build], state: str) -> list[str]:
    w = make_world(tmp_path)
    fake.add_repo("pytorch/pytorch", git_dir=w.path)
    history = store_history(tmp_path, w)
    window = w.main[2:7]  # the older night's base, then the window's four commits
    path = tmp_path / "bisect.json"
    save_state(path, State(EVENT, window, MB // 10, state, 1, builds))
    args = ["investigate", "--history", str(history), "--date", "2025-10-11"]
    return [*args, "--variant", "cuda12_8", "--no-evidence", "--bisect-state", str(path)]


def test_a_pending_bisection_is_the_verdict(tmp_path: Path, fake_github: FakeGitHub) -> None:
    w = make_world(tmp_path / "w")
    builds = [_build(w.main[2], 855.0, 501), _build(w.main[6], 859.3, 502)]
    builds.append(_build(w.main[4], None, 503))
    args = _investigate(tmp_path, fake_github, builds, "pending")
    result = run_main(args, env=fake_github.env())
    assert result.returncode == 0, result.stderr
    head = "\n".join(result.stdout.splitlines()[:5])
    assert "**Verdict: the step lies between `" + w.main[3][:12] in head, head
    assert f"`{w.main[6][:12]}`" in head and "(4 commits); building `" + w.main[4][:12] in head


def test_a_settled_bisection_confirms_its_culprit(tmp_path: Path, fake_github: FakeGitHub) -> None:
    w = make_world(tmp_path / "w")
    sizes = {2: 855.0, 3: 859.2, 4: 859.2, 6: 859.3}
    builds = [_build(w.main[i], size, 600 + i) for i, size in sizes.items()]
    args = _investigate(tmp_path, fake_github, builds, "done")
    result = run_main(args, env=fake_github.env())
    assert result.returncode == 0, result.stderr
    head = "\n".join(result.stdout.splitlines()[:5])
    assert f"**Verdict: caused by `{w.main[3][:12]}`" in head, head
    assert "CONFIRMED by bisection" in head
    data = json.loads(run_main([*args, "--format", "json"], env=fake_github.env()).stdout)
    status = {c["sha"]: c["status"] for c in data["candidates"]}
    assert status[w.main[3]] == "CONFIRMED"
    assert all(status[w.main[i]] != "CONFIRMED" for i in (4, 5, 6) if w.main[i] in status)
    assert [c["rank"] for c in data["candidates"]] == list(range(1, len(status) + 1))


def test_a_state_of_another_night_is_refused(tmp_path: Path, fake_github: FakeGitHub) -> None:
    args = _investigate(tmp_path, fake_github, [], "pending")
    args[args.index("2025-10-11")] = "2025-10-10"
    result = run_main(args, env=fake_github.env())
    assert result.returncode != 0 and "bisect.json: the bisection state is of" in result.stderr
