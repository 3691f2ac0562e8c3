"""Build run records for tests: a night is a date and {variant: size in MB}."""

from __future__ import annotations

import datetime as dt
import hashlib
from collections.abc import Mapping

from wheel_size.history import ArtifactRecord, RunRecord

MB = 1_048_576


def run(
    day: str | dt.date,
    sizes: Mapping[str, float],
    *,
    run_id: int | None = None,
    conclusion: str | None = "success",
    status: str | None = "completed",
    created: str = "07:30:00",
    attempt: int = 1,
    repo: str = "pytorch/pytorch",
    pattern: str = "manywheel-py3_12-{}",
) -> RunRecord:
    d = dt.date.fromisoformat(day) if isinstance(day, str) else day
    rid = run_id if run_id is not None else int(d.strftime("%Y%m%d")) * 10
    base = hashlib.sha1(f"base{d}".encode()).hexdigest()
    return RunRecord(
        repository=repo,
        date=d,
        run_id=rid,
        workflow_id=21257348,
        workflow_path=".github/workflows/nightly.yml",
        run_attempt=attempt,
        status=status,
        conclusion=conclusion,
        created_at=f"{d}T{created}Z",
        head_branch="nightly",
        head_sha=hashlib.sha1(f"head{d}{rid}".encode()).hexdigest(),
        base_sha=base,
        title=f"{d} nightly release ({base})",
        artifacts=tuple(
            ArtifactRecord(
                name=pattern.format(v), size_in_bytes=round(mb * MB), created_at=f"{d}T09:00:00Z"
            )
            for v, mb in sorted(sizes.items())
        ),
    )
