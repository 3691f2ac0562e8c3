"""A fake pytorch/pytorch with nightly runs, shared by the collection and track tests."""

from __future__ import annotations

import datetime as dt
import hashlib

from fakegithub import FakeGitHub, Workflow

MB = 1_048_576
WORKFLOW_ID = 21257348
VARIANTS = {
    "cpu": 175.0,
    "cuda12_6": 794.0,
    "cuda12_8": 860.0,
    "cuda12_9": 1197.0,
    "cuda13_0": 585.0,
    "xpu": 694.0,
    "rocm6_4": 4214.0,
    "rocm7_0": 4342.0,
}


def add_world(fake: FakeGitHub) -> Workflow:
    repo = fake.add_repo("pytorch/pytorch")
    repo.add_workflow(99, "other", ".github/workflows/other.yml")
    return repo.add_workflow(
        WORKFLOW_ID,
        "linux-binary-manywheel",
        ".github/workflows/generated-linux-binary-manywheel-nightly.yml",
    )


def base_sha(day: dt.date) -> str:
    return hashlib.sha1(f"base{day}".encode()).hexdigest()


def add_night(
    wf: Workflow,
    day: dt.date,
    grow: dict[str, float] | None = None,
    *,
    hour: int = 7,
    conclusion: str = "success",
    variants: dict[str, float] | None = None,
    expired: bool = False,
    branch: str = "nightly",
) -> int:
    """One nightly run with every variant's artifact; returns the run id."""
    run = wf.add_run(
        created_at=f"{day}T{hour:02d}:30:00Z",
        head_sha=hashlib.sha1(f"head{day}{hour}".encode()).hexdigest(),
        head_branch=branch,
        message=f"{day} nightly release ({base_sha(day)})",
        conclusion=conclusion,
    )
    for name, mb in (variants if variants is not None else VARIANTS).items():
        size = mb + (grow or {}).get(name, 0.0)
        run.add_artifact(
            f"manywheel-py3_12-{name}",
            size_in_bytes=round(size * MB),
            expired=expired,
            created_at=f"{day}T{hour + 2:02d}:00:00Z",
        )
    return run.id


def add_month(wf: Workflow, year: int, month: int, *, expired: bool = True) -> None:
    """A month of nights; cuda12_8 grows 4 MB on the 11th (the Oct 2025 -O3 change)."""
    day = dt.date(year, month, 1)
    grow: dict[str, float] = {}
    while day.month == month:
        if day.day == 11:
            grow = {"cuda12_8": 4.0, "cuda12_6": 3.9, "cpu": 1.4}
        add_night(wf, day, grow, expired=expired)
        day += dt.timedelta(days=1)
