"""A window whose only per-commit evidence is what the bisection builds: a real git
repository of N main commits, three nightlies in the history (a quiet night for the noise
band, then the jump), and the fake GitHub building any commit with a size from a scenario."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fakegithub import FakeGitHub
from fakegithub.dispatch import Farm, add_farm
from history_factory import run
from regression_world import Change, World, build_world
from wheel_size.history import DirectoryStore

MB = 1 << 20
ARTIFACT = "manywheel-py3_12-cuda12_8"
JUMP_NIGHT = "2025-10-11"


@dataclass
class BisectWorld:
    world: World
    farm: Farm
    history: Path
    order: list[str]  # the window: the older base first

    def args(self, *extra: str, store: bool = True) -> list[str]:
        where = ["--history", str(self.history)] if store else ["--workflow", "nightly.yml"]
        return [
            "bisect", "--repo", "pytorch/pytorch", "--date", JUMP_NIGHT, "--variant", "cuda12_8",
            *where, "--build-workflow", "build.yml", "--poll-interval", "0.001", "--wait", "30",
            "--format", "json", *extra,
        ]  # fmt: skip


def make(
    tmp_path: Path,
    fake: FakeGitHub,
    n: int,
    jumps: dict[int, int],
    *,
    size: Callable[[str, int], int | str | None] | None = None,
    night_offset: int = 3 * MB,
    from_main: bool = False,
    **farm: Any,
) -> BisectWorld:
    """``jumps``: window index (1..n) -> bytes the commit adds; ``size(sha, plain)``
    replaces a commit's build result (None: it fails; "never": it never finishes).
    ``from_main``: the nightlies are built from main commits and name no base SHA."""
    changes = [Change(f"commit {i} (#{1000 + i})", {"f.txt": f"{i}\n"}) for i in range(n + 2)]
    nights = [("2025-10-09", 0, None), ("2025-10-10", 1, None), (JUMP_NIGHT, n + 1, None)]
    world = build_world(tmp_path / "git", changes, nights)
    order = world.main[1 : n + 2]
    plain: dict[str, int] = {}
    total = 900 * MB
    for i, sha in enumerate(order):
        total += jumps.get(i, 0)
        plain[sha] = total
    plain[world.main[0]] = 900 * MB - MB // 5
    repo = fake.add_repo("pytorch/pytorch", git_dir=world.path)
    wf = repo.add_workflow(name="build", path=".github/workflows/build.yml")

    def result(sha: str) -> int | str | None:
        return size(sha, plain[sha]) if size else plain[sha]

    farm.setdefault("artifact", ARTIFACT)
    built = add_farm(fake, wf, size=result, **farm)
    # The nightlies: the per-commit sizes plus what a nightly build adds (version, flags).
    records = []
    for day, base in (
        ("2025-10-09", world.main[0]),
        ("2025-10-10", order[0]),
        (JUMP_NIGHT, order[-1]),
    ):
        record = run(day, {"cuda12_8": (plain[base] + night_offset) / MB})
        records.append(
            dataclasses.replace(record, head_sha=base, base_sha=None, title=f"{day} nightly")
            if from_main  # built straight from main: no release commit, no base SHA
            else dataclasses.replace(
                record,
                head_sha=world.nightly[day],
                base_sha=base,
                title=f"{day} nightly release ({base})",
            )
        )
    history = tmp_path / "history"
    DirectoryStore(history).write_runs(records)
    # The same nights as the nightly workflow's runs on the fake (read without a store).
    nightly = repo.add_workflow(21257348, "nightly", ".github/workflows/nightly.yml")
    for record in records:
        run_ = nightly.add_run(
            created_at=f"{record.date}T07:30:00Z",
            head_sha=record.head_sha,
            message=str(record.title),
        )
        for artifact in record.artifacts:
            run_.add_artifact(artifact.name, size_in_bytes=artifact.size_in_bytes)
    return BisectWorld(world, built, history, order)
