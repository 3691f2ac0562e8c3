#!/usr/bin/env python3
"""Synthesize examples/history: Oct 2025 – Mar 10 2026 nightlies of pytorch/pytorch.

The numbers are built from the figures the wheel-size-analyzer seed publishes for
manywheel-py3_12-cuda12_8 (month start/end sizes, the named jumps, the Nov 4–5 spike and
its Nov 12 rollback, the Nov 15–17 rename to cuda12_9, the Thanksgiving gap) and its
approximate sizes of the other variants. Everything else (run ids, SHAs, sub-threshold
noise, the failed and partial runs that exercise every day status) is invented,
deterministically, so re-running this script reproduces the committed files byte for byte.

    python3 scripts/make_example_history.py [OUTPUT_DIR]
"""

from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import random
import shutil
import sys
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from wheel_size.history import ArtifactRecord, DirectoryStore, RunRecord

MB = 1_048_576
REPO = "pytorch/pytorch"
WORKFLOW_ID = 21257348
WORKFLOW_PATH = ".github/workflows/generated-linux-binary-manywheel-nightly.yml"
START = dt.date(2025, 10, 1)
END = dt.date(2026, 3, 10)
COLLECTED = "2026-03-11T09:00:00Z"

# cuda12_8 size (MB, 1 decimal) on the first day, and every change of 0.1 MB or more after
# it. Jumps and month boundaries are the seed's; the small steps are filler that make the
# month totals come out as published.
CUDA12_8_START = 855.3
CUDA12_8_STEPS = {
    # October 2025: +11.7 MB (855.3 → 867.0)
    "2025-10-03": 0.1, "2025-10-07": -0.1, "2025-10-11": 4.0, "2025-10-14": 0.1,
    "2025-10-18": 2.3, "2025-10-19": -0.3, "2025-10-22": 0.1, "2025-10-24": 0.1,
    "2025-10-29": 1.6, "2025-10-30": 3.8,
    # November: 867.1 → 868.3; +4.7 MB over Nov 4–5, rolled back on Nov 12 (−4.1 MB)
    "2025-11-01": 0.1, "2025-11-04": 3.1, "2025-11-05": 1.6, "2025-11-12": -4.1,
    "2025-11-13": 0.2, "2025-11-18": 0.2, "2025-11-21": 0.2,
    # December: 868.3 → 870.1, largest step Dec 3 (+0.9 MB)
    "2025-12-03": 0.9, "2025-12-10": 0.3, "2025-12-16": 0.4, "2025-12-22": 0.2,
    # January 2026: 870.2 → 779.6
    "2026-01-01": 0.1, "2026-01-06": -29.7, "2026-01-09": 0.4, "2026-01-13": 0.3,
    "2026-01-17": -67.1, "2026-01-21": 0.3, "2026-01-25": 4.9, "2026-01-28": 0.3,
    # February: 779.6 → 776.6
    "2026-02-06": -1.8, "2026-02-11": 0.2, "2026-02-19": -1.6, "2026-02-24": 0.2,
    # March 1–10: 776.6 → 773.5
    "2026-03-03": -0.2, "2026-03-05": -2.6, "2026-03-08": -0.3,
}  # fmt: skip

# Other variants: start size and how each seed-named event moved them (MB).
OTHERS = {
    "cpu": (174.6, {"2025-10-11": 1.4, "2025-10-18": 0.009, "2025-10-30": 0.2}),
    "cuda12_6": (
        792.1,
        {"2025-10-11": 3.9, "2025-10-18": 2.1, "2025-10-30": 3.5, "2026-01-06": -28.4},
    ),
    "cuda13_0": (
        579.8,
        {"2025-10-11": 2.9, "2025-10-29": 1.41, "2025-10-30": 2.6, "2026-01-17": -12.3},
    ),
    "xpu": (690.9, {"2025-10-11": 3.1, "2025-10-30": 0.4}),
    "rocm6_4": (4210.2, {"2025-10-11": 6.8, "2025-10-30": 1.1}),
    "rocm7_0": (4337.5, {"2025-10-11": 7.2, "2025-10-30": 1.2}),
}
CUDA12_9_FIRST = dt.date(2025, 11, 15)  # the seed's "temporarily renamed to cuda12_9"
CUDA12_9_START = 1211.0

NO_RUN = {dt.date(2025, 11, 25) + dt.timedelta(days=i) for i in range(6)}  # Thanksgiving
NO_RUN.add(dt.date(2025, 12, 25))
RENAMED = {dt.date(2025, 11, 15), dt.date(2025, 11, 16), dt.date(2025, 11, 17)}
FAILED_THEN_RERUN = {dt.date(2025, 10, 7), dt.date(2026, 2, 10)}  # a re-run fixed the night
FAILED_ONLY = {dt.date(2025, 12, 8)}  # the build failed; no cuda12_8 that night
WITHOUT_CUDA12_8 = {dt.date(2026, 1, 30)}  # the run succeeded but skipped the variant


def _hex(*parts: object, n: int = 40) -> str:
    return hashlib.sha1("/".join(map(str, parts)).encode()).hexdigest()[:n]


def _series(start: float, steps: dict[str, float]) -> dict[dt.date, float]:
    out: dict[dt.date, float] = {}
    size = start
    day = START
    while day <= END:
        size += steps.get(day.isoformat(), 0.0)
        out[day] = size
        day += dt.timedelta(days=1)
    return out


def _artifacts(
    rng: random.Random,
    day: dt.date,
    subset: dict[str, dict[dt.date, float]],
    rid: int,
    expired: bool,
) -> tuple[ArtifactRecord, ...]:
    out = []
    for variant, values in sorted(subset.items()):
        name = f"manywheel-py3_12-{variant}"
        noise = rng.randint(-20_000, 20_000)  # stays below 0.05 MB
        out.append(
            ArtifactRecord(
                name=name,
                size_in_bytes=round(values[day] * MB) + noise,
                expired=expired,
                created_at=f"{day}T10:{rng.randint(10, 59)}:{rng.randint(10, 59)}Z",
                digest="sha256:" + hashlib.sha256(f"{name}{day}{rid}".encode()).hexdigest(),
                id=rid // 1000 + len(out),
            )
        )
    return tuple(out)


def build() -> list[RunRecord]:
    rng = random.Random(20251011)
    series = {"cuda12_8": _series(CUDA12_8_START, CUDA12_8_STEPS)}
    for variant, (start, steps) in OTHERS.items():
        series[variant] = _series(start, steps)
    runs: list[RunRecord] = []
    run_id = 18_250_000_000
    day = START
    while day <= END:
        if day in NO_RUN:
            day += dt.timedelta(days=1)
            continue
        expired = (dt.date(2026, 3, 11) - day).days > 90
        names = dict(series)
        if day >= CUDA12_9_FIRST:
            drift = min((day - CUDA12_9_FIRST).days, 14) * -1.0
            names["cuda12_9"] = {day: CUDA12_9_START + drift}
        if day in RENAMED or day in WITHOUT_CUDA12_8 or day in FAILED_ONLY:
            names.pop("cuda12_8")

        base = _hex("base", day)
        head = _hex("nightly", day)
        template = RunRecord(
            run_id=0,
            repository=REPO,
            date=day,
            workflow_id=WORKFLOW_ID,
            workflow_path=WORKFLOW_PATH,
            event="push",
            head_branch="nightly",
            head_sha=head,
            base_sha=base,
            title=f"{day} nightly release ({base})",
            collected_at=COLLECTED,
        )
        if day in FAILED_THEN_RERUN or day in FAILED_ONLY:
            partial = {k: v for k, v in names.items() if k in ("cpu", "xpu")}
            runs.append(
                replace(
                    template,
                    run_id=run_id,
                    run_number=run_id % 10_000,
                    status="completed",
                    conclusion="failure",
                    created_at=f"{day}T07:3{rng.randint(0, 9)}:00Z",
                    artifacts=_artifacts(rng, day, partial, run_id, expired),
                )
            )
            run_id += 1_317
            if day in FAILED_ONLY:
                day += dt.timedelta(days=1)
                continue
            created = f"{day}T15:0{rng.randint(0, 9)}:00Z"
        else:
            created = f"{day}T07:3{rng.randint(0, 9)}:00Z"
        runs.append(
            replace(
                template,
                run_id=run_id,
                run_number=run_id % 10_000,
                status="completed",
                conclusion="success",
                created_at=created,
                artifacts=_artifacts(rng, day, names, run_id, expired),
            )
        )
        run_id += 86_413
        day += dt.timedelta(days=1)
    return runs


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument(
        "out", nargs="?", type=Path,
        default=Path(__file__).resolve().parents[1] / "examples" / "history",
        help="history folder to write (default examples/history)",
    )  # fmt: skip
    out = parser.parse_args().out
    if (out / "runs").exists():
        shutil.rmtree(out / "runs")
    result = DirectoryStore(out).write_runs(build())
    print(f"wrote {len(result.changed)} run files to {out}")


if __name__ == "__main__":
    main()
