"""The jobs of a pytorch/pytorch-shaped nightly run, named and timed as the real ones.

PyTorch's ``generated-linux-binary-manywheel-nightly.yml`` calls a reusable workflow per
build, so the jobs listing names them ``manywheel-py3_12-cuda12_8-build / build``, followed
by the ``-test / test`` and ``-upload / upload`` jobs of the same build, after a
``get-label-type / runner-determinator`` job. Build minutes are what those jobs take
(CPU under an hour, CUDA and ROCm two to three hours).
"""

from __future__ import annotations

import datetime as dt

from fakegithub import Workflow
from fakegithub.model import Run

BUILD_MINUTES = {
    "cpu": 41.0,
    "cuda12_6": 148.0,
    "cuda12_8": 163.0,
    "cuda12_9": 171.0,
    "cuda13_0": 158.0,
    "xpu": 96.0,
    "rocm6_4": 187.0,
    "rocm7_0": 192.0,
}
PYTHONS = ("py3_12",)
# Every Python version PyTorch builds a night (for the page count of a full listing).
ALL_PYTHONS = ("py3_10", "py3_11", "py3_12", "py3_13", "py3_13t", "py3_14", "py3_14t")


def run_of(wf: Workflow, run_id: int) -> Run:
    return next(r for r in wf.runs if r.id == run_id)


def add_jobs(
    run: Run,
    *,
    minutes: dict[str, float] | None = None,
    pythons: tuple[str, ...] = PYTHONS,
    skip: tuple[str, ...] = (),
) -> None:
    """The run's jobs: one build, test and upload job per Python and variant (``minutes``
    overrides a variant's build minutes; ``skip`` leaves a variant's build job out)."""
    start = run.created_at + dt.timedelta(minutes=1)
    run.add_job(
        "get-label-type / runner-determinator",
        started_at=start,
        completed_at=start + dt.timedelta(seconds=14),
    )
    for python in pythons:
        for variant, default in BUILD_MINUTES.items():
            name = f"manywheel-{python}-{variant}"
            took = (minutes or {}).get(variant, default)
            began = start + dt.timedelta(minutes=2)
            ended = began + dt.timedelta(minutes=took)
            if variant not in skip:
                run.add_job(f"{name}-build / build", started_at=began, completed_at=ended)
            test_end = ended + dt.timedelta(minutes=23)
            run.add_job(f"{name}-test / test", started_at=ended, completed_at=test_end)
            run.add_job(
                f"{name}-upload / upload",
                started_at=test_end,
                completed_at=test_end + dt.timedelta(minutes=3),
            )
