"""Fetch a workflow run's artifacts for the audit: each one a zip of wheels, saved under
``<dir>/<artifact name>.zip`` so the audit's paths name the job that produced them."""

from __future__ import annotations

import fnmatch
import re
from pathlib import Path

from wheel_size.ports import ArtifactDownloads, ArtifactTooLarge, ArtifactUnavailable

__all__ = ["download_run_artifacts"]


def download_run_artifacts(
    github: ArtifactDownloads,
    repo: str,
    run_id: int,
    dest: Path,
    *,
    pattern: str = "*",
    max_bytes: int | None = None,
) -> tuple[list[tuple[Path, str]], list[str]]:
    """Download every matching artifact: (zip path, display name) pairs, and what was skipped."""
    saved: list[tuple[Path, str]] = []
    skipped: list[str] = []
    for artifact in github.run_artifacts(repo, run_id):
        if not fnmatch.fnmatchcase(artifact.name, pattern):
            continue
        safe = re.sub(r"[^A-Za-z0-9._+-]", "_", artifact.name) or f"artifact-{artifact.id}"
        try:
            path = github.download_artifact(artifact, dest / f"{safe}.zip", max_bytes=max_bytes)
            saved.append((path, f"run {run_id}/{artifact.name}"))
        except (ArtifactUnavailable, ArtifactTooLarge) as exc:
            skipped.append(str(exc))
    return saved, skipped
