"""Download the artifacts of the nights before and after a jump and diff their wheels.

Every way this can fail on a nightly runner (expired artifacts, an artifact over the size
limit, a missing run id, wheels that cannot be compared) ends as "evidence unavailable" with
the reason, never as a failed job: the regression issue is still worth filing.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from github import Github

from wheel_size.diff.run import DiffReport, diff_inputs
from wheel_size.errors import WheelSizeError
from wheel_size.evidence.reading import ContentReading, read_growth
from wheel_size.github.artifacts import download_artifact, list_run_artifacts

__all__ = ["Evidence", "NightArtifact", "collect_evidence"]


@dataclass(frozen=True)
class NightArtifact:
    """Which artifact of which run holds one night's wheel."""

    run_id: int | None
    artifact: str | None
    date: str


@dataclass
class Evidence:
    before: NightArtifact
    after: NightArtifact
    report: DiffReport | None = None
    reading: ContentReading | None = None
    unavailable: str | None = None

    @property
    def available(self) -> bool:
        return self.report is not None

    def to_json(self) -> dict[str, Any]:
        return {
            "available": self.available,
            "unavailable_reason": self.unavailable,
            "before": {"run_id": self.before.run_id, "artifact": self.before.artifact},
            "after": {"run_id": self.after.run_id, "artifact": self.after.artifact},
            "reading": self.reading.to_json() if self.reading else None,
            "diff": self.report.to_json() if self.report else None,
        }


def _fetch(gh: Github, repo: str, night: NightArtifact, dest: Path, max_bytes: int | None,
           progress: TextIO | None) -> Path:  # fmt: skip
    if night.run_id is None or not night.artifact:
        raise _Unavailable(f"no run id or artifact name recorded for {night.date}")
    found = [a for a in list_run_artifacts(gh, repo, night.run_id) if a.name == night.artifact]
    if not found:
        raise _Unavailable(f"run {night.run_id} ({night.date}) has no artifact {night.artifact!r}")
    return download_artifact(gh, found[0], dest, max_bytes=max_bytes, progress_stream=progress)


class _Unavailable(Exception):
    pass


def collect_evidence(
    gh: Github,
    repo: str,
    before: NightArtifact,
    after: NightArtifact,
    *,
    max_bytes: int | None = None,
    workdir: Path | None = None,
    progress: TextIO | None = None,
) -> Evidence:
    """Download both nights' artifacts (each up to ``max_bytes``), diff and read them."""
    evidence = Evidence(before, after)
    with tempfile.TemporaryDirectory(prefix="wheel-size-evidence-", dir=workdir) as tmp:
        try:
            old = _fetch(gh, repo, before, Path(tmp) / "before.zip", max_bytes, progress)
            new = _fetch(gh, repo, after, Path(tmp) / "after.zip", max_bytes, progress)
            evidence.report = diff_inputs(old, new)
        except _Unavailable as exc:
            evidence.unavailable = str(exc)
            return evidence
        except WheelSizeError as exc:
            evidence.unavailable = str(exc)
            return evidence
    evidence.reading = read_growth(evidence.report.comparisons)
    return evidence
