"""A generated size history in the shape of ``wheel-size report --format json``.

Deterministic (seeded) so a failing test can be reproduced, varied enough to exercise every
part of the chart: slow creep, a jump up, a rollback, no-run days, a run without the
artifact, and a three-day rename.
"""

from __future__ import annotations

import datetime as dt
import random
from typing import Any

MB = 1024 * 1024


def generated_report(
    variant: str = "cuda12_8",
    *,
    start: dt.date = dt.date(2025, 9, 1),
    days: int = 90,
    base_mb: float = 870.0,
    seed: int = 7,
    hostile: bool = False,
) -> dict[str, Any]:
    rng = random.Random(seed)
    artifact = f"manywheel-py3_12-{variant}"
    size_bytes = int(base_mb * MB)
    rows: list[dict[str, Any]] = []
    jumps: list[dict[str, Any]] = []
    previous: float | None = None
    jump_day, rollback_day = days // 3, days // 3 + 4
    second_jump = (2 * days) // 3
    for index in range(days):
        date = (start + dt.timedelta(days=index)).isoformat()
        size_bytes += rng.randint(-40_000, 120_000)
        if index == jump_day:
            size_bytes += 82 * MB
        if index == rollback_day:
            size_bytes -= 80 * MB
        if index == second_jump:
            size_bytes += 12 * MB
        size_mb: float | None
        name: str | None
        status, size_mb, name = "ok", round(size_bytes / MB, 3), artifact
        if index in (10, 11, 45):
            status, size_mb, name = "no_run", None, None
        elif index == 20:
            status, size_mb, name = "missing", None, None
        elif index in (60, 61, 62):
            status, name = "renamed", artifact.replace("12_8", "12_9")
            size_mb = round((size_mb or 0.0) + 350, 3)
        if hostile and index == 5:
            name = '<script>alert("x")</script>'
        delta = None
        if status == "ok" and previous is not None and size_mb is not None:
            delta = round(size_mb - previous, 3)
            if abs(delta) >= 1.0:
                jumps.append({"date": date, "delta_mb": delta, "size_mb": size_mb})
        if status == "ok":
            previous = size_mb
        rows.append(
            {
                "date": date,
                "size_mb": size_mb,
                "delta_mb": delta,
                "status": status,
                "run_id": 17_000_000_000 + index if status != "no_run" else None,
                "artifact": name,
            }
        )
    ok = [r for r in rows if r["status"] == "ok"]
    first, last = ok[0], ok[-1]
    text = "cuda12_8 missing while cuda12_9 appears"
    if hostile:
        text = 'Revert "<img src=x onerror=alert(1)>" & @someone #123'
    return {
        "variant": variant,
        "artifact": artifact,
        "start": {"date": first["date"], "size_mb": first["size_mb"]},
        "end": {"date": last["date"], "size_mb": last["size_mb"]},
        "change_mb": round(last["size_mb"] - first["size_mb"], 3),
        "change_pct": round(100 * (last["size_mb"] - first["size_mb"]) / first["size_mb"], 3),
        "jumps": jumps,
        "days": rows,
        "observations": [
            {
                "kind": "rename",
                "dates": [r["date"] for r in rows if r["status"] == "renamed"],
                "text": text,
            },
            {
                "kind": "rollback",
                "dates": [rows[jump_day]["date"], rows[rollback_day]["date"]],
                "text": "a +82 MB jump was undone four days later",
            },
        ],
    }
