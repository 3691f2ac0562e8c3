"""Download the artifacts of the nights before and after a jump and diff their wheels.

Every way this can fail on a nightly runner ends as "evidence unavailable" with the reason,
never as a failed job: the regression issue is still worth filing. That covers what GitHub
does (expired artifacts, an artifact over the size limit, a missing run id) and what the
artifacts do: a zip bomb, a bad CRC, a file that is not a zip, a diff that would take hours.
The diff runs in a worker process with a memory budget (:mod:`.sandbox`); downloads and diff
together run against a time budget shared by every issue of the run (:class:`EvidenceBudget`).
"""

from __future__ import annotations

import json
import re
import tempfile
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, TextIO, TypeVar

from wheel_size.diff.run import DiffReport
from wheel_size.errors import WheelSizeError
from wheel_size.evidence.document import EvidenceDocument
from wheel_size.evidence.families import KernelFamilies
from wheel_size.evidence.options import DEFAULT_MEMORY_MB, DEFAULT_TIME_BUDGET
from wheel_size.evidence.reading import ContentReading
from wheel_size.oneline import one_line
from wheel_size.ports import ArtifactDownloads
from wheel_size.render.templates import render_macro
from wheel_size.units import in_mb

if TYPE_CHECKING:
    from wheel_size.evidence.transfer import Transferred

__all__ = ["Evidence", "EvidenceBudget", "NightArtifact", "collect_evidence"]

T = TypeVar("T")


@dataclass(frozen=True)
class NightArtifact:
    """Which artifact of which run holds one night's wheel."""

    run_id: int | None
    artifact: str | None
    date: str


@dataclass(frozen=True)
class EvidenceBudget:
    """What the evidence may cost: the diff worker's address space, and a wall-clock
    deadline shared by every download and diff of one run. The clock is injected
    (``time.monotonic`` by default) so that a test decides when time passes."""

    memory_bytes: int | None = DEFAULT_MEMORY_MB << 20
    seconds: float | None = float(DEFAULT_TIME_BUDGET)
    deadline: float | None = None
    clock: Callable[[], float] = field(default=time.monotonic, compare=False, repr=False)

    @classmethod
    def starting_now(
        cls,
        memory_bytes: int | None,
        seconds: float | None,
        clock: Callable[[], float] = time.monotonic,
    ) -> EvidenceBudget:
        deadline = None if seconds is None else clock() + seconds
        return cls(memory_bytes, seconds, deadline, clock)

    def remaining(self) -> float | None:
        return None if self.deadline is None else self.deadline - self.clock()

    def describe(self) -> str:
        return f"{self.seconds:.0f} s" if self.seconds is not None else "none"


@dataclass
class Evidence:
    before: NightArtifact
    after: NightArtifact
    report: DiffReport | None = None
    reading: ContentReading | None = None
    unavailable: str | None = None
    # Per comparison, the changed files the worker left out of ``report`` (it keeps the
    # largest changes; the issue shows six).
    files_omitted: list[int] = field(default_factory=list)
    # The kernel template families that moved most; None with ``families_note`` saying
    # why (out of time or memory), or None and no note when the wheels have no GPU code.
    families: KernelFamilies | None = None
    families_note: str | None = None

    @property
    def available(self) -> bool:
        return self.report is not None

    def to_json(self) -> EvidenceDocument:
        return {
            "available": self.available,
            "unavailable_reason": self.unavailable,
            "before": {"run_id": self.before.run_id, "artifact": self.before.artifact},
            "after": {"run_id": self.after.run_id, "artifact": self.after.artifact},
            "reading": self.reading.to_json() if self.reading else None,
            "diff": self.report.to_json() if self.report else None,
            "files_omitted": self.files_omitted if self.report else None,
            "families": self.families.to_json() if self.families else None,
            "families_note": self.families_note,
        }


class _Unavailable(Exception):
    pass


def _say(note: str, **values: object) -> str:
    """A note's words: the macro ``note`` of ``evidence_notes.txt.j2``."""
    return render_macro("evidence_notes.txt.j2", note, **values)


def _fetch(github: ArtifactDownloads, repo: str, night: NightArtifact, dest: Path,
           max_bytes: int | None, progress: TextIO | None) -> Path:  # fmt: skip
    from wheel_size.ports import worded

    if night.run_id is None or not night.artifact:
        raise _Unavailable(f"no run id or artifact name recorded for {night.date}")
    with worded(_say("listing", run=night.run_id, repo=repo)):
        listed = github.run_artifacts(repo, night.run_id)
    found = [a for a in listed if a.name == night.artifact]
    if not found:
        raise _Unavailable(f"run {night.run_id} ({night.date}) has no artifact {night.artifact!r}")
    return github.download_artifact(found[0], dest, max_bytes=max_bytes, progress=progress)


def _in_time(budget: EvidenceBudget, what: str, work: Callable[[], T]) -> T:
    """``work()``, given up (left to finish on its own in a daemon thread, its files in a
    directory that is removed) when the budget's deadline passes first."""
    remaining = budget.remaining()
    if remaining is None:
        return work()
    if remaining <= 0:
        raise _Unavailable(f"the evidence time budget ({budget.describe()}) ran out before {what}")
    values: list[T] = []
    errors: list[BaseException] = []

    def run() -> None:
        try:
            values.append(work())
        except BaseException as exc:  # handed to the caller; nothing printed from a thread
            errors.append(exc)

    thread = threading.Thread(target=run, name="wheel-size-evidence", daemon=True)
    thread.start()
    thread.join(remaining)
    if thread.is_alive():
        raise _Unavailable(f"{what} did not finish within the evidence time budget "
                           f"({budget.describe()})")  # fmt: skip
    if errors:
        raise errors[0]
    return values[0]


def _diff(old: Path, new: Path, work: Path, budget: EvidenceBudget) -> Mapping[str, object]:
    """Run the worker on the two downloads; its result, or _Unavailable saying why not."""
    from wheel_size.evidence.sandbox import run_limited, worker_argv

    remaining = budget.remaining()
    if remaining is not None and remaining <= 0:
        raise _Unavailable(
            f"the evidence time budget ({budget.describe()}) ran out before the wheel diff"
        )
    result = work / "result.json"
    outcome = run_limited(
        worker_argv(old, new, result),
        workdir=work,
        memory_bytes=budget.memory_bytes,
        timeout=remaining,
    )
    failure = None
    if outcome.kind == "timeout":
        failure = _say("timed_out", budget=budget.describe())
    elif outcome.kind == "memory":
        failure = _say("out_of_memory", mb=in_mb(budget.memory_bytes or 0, digits=0))
    elif outcome.kind == "failed":
        last = outcome.detail.splitlines()[-1] if outcome.detail else ""
        failure = _say("diff_failed", code=outcome.returncode, last=last)
    if failure is not None:
        return _partial(result, failure)
    return _read(result)


def _read(result: Path) -> dict[str, object]:
    from wheel_size.evidence.transfer import MAX_RESULT_BYTES

    size = result.stat().st_size
    if size > MAX_RESULT_BYTES:
        raise _Unavailable(f"the wheel diff's result is too large ({size:,} bytes)")
    data = json.loads(result.read_text(encoding="ascii"))
    if not isinstance(data, dict):
        raise _Unavailable("the wheel diff gave no result")
    if "unavailable" in data:
        raise _Unavailable(str(data["unavailable"]))
    return data


def _partial(result: Path, failure: str) -> dict[str, object]:
    """The worker stopped (time, memory, a crash) after writing its file-level result and
    before the kernel family diff finished: that result, its families note saying why.
    Without such a result, _Unavailable(failure)."""
    from wheel_size.evidence.worker import FAMILIES_PENDING

    if not result.is_file():
        raise _Unavailable(failure)
    try:
        data = _read(result)
    except (_Unavailable, ValueError, OSError):
        raise _Unavailable(failure) from None
    body = data.get("result")
    if not isinstance(body, dict) or body.get("families_note") != FAMILIES_PENDING:
        raise _Unavailable(failure)
    body["families_note"] = one_line(f"{FAMILIES_PENDING}: {failure}", 500)
    return data


def _decoded(data: Mapping[str, object]) -> Transferred:
    """The worker's result checked field by field; _Unavailable naming the bad field."""
    from wheel_size.evidence.transfer import TransferError, decode_result

    try:
        return decode_result(data.get("result"))
    except TransferError as exc:
        raise _Unavailable(f"the wheel diff's result is malformed: {exc}") from None


def collect_evidence(
    github: ArtifactDownloads,
    repo: str,
    before: NightArtifact,
    after: NightArtifact,
    *,
    max_bytes: int | None = None,
    workdir: Path | None = None,
    progress: TextIO | None = None,
    budget: EvidenceBudget | None = None,
) -> Evidence:
    """Download both nights' artifacts (each up to ``max_bytes``), diff and read them within
    ``budget`` (default: the documented defaults, starting now). Never raises for what
    GitHub or the artifacts do: ``evidence.unavailable`` says why there is no evidence."""

    if budget is None:
        budget = EvidenceBudget.starting_now(DEFAULT_MEMORY_MB << 20, float(DEFAULT_TIME_BUDGET))
    evidence = Evidence(before, after)
    names = {
        "before": _say("artifact_of", date=before.date),
        "after": _say("artifact_of", date=after.date),
    }
    scratch = ""
    try:
        with tempfile.TemporaryDirectory(
            prefix="wheel-size-evidence-", dir=workdir, ignore_cleanup_errors=True
        ) as tmp:
            scratch = tmp
            old_path, new_path = Path(tmp) / "before.zip", Path(tmp) / "after.zip"
            old = _in_time(
                budget,
                _say("download_of", date=before.date),
                lambda: _fetch(github, repo, before, old_path, max_bytes, progress),
            )
            new = _in_time(
                budget,
                _say("download_of", date=after.date),
                lambda: _fetch(github, repo, after, new_path, max_bytes, progress),
            )
            data = _diff(old, new, Path(tmp) / "work", budget)
            got = _decoded(data)
    except (_Unavailable, WheelSizeError) as exc:
        evidence.unavailable = _reason(str(exc), scratch, names)
        return evidence
    except Exception as exc:  # whatever else went wrong, the issue is still filed
        text = _say("step_failed", kind=type(exc).__name__, error=exc)
        evidence.unavailable = _reason(text, scratch, names)
        return evidence
    evidence.report, evidence.reading, evidence.files_omitted = got.report, got.reading, got.omitted
    evidence.families, evidence.families_note = got.families, got.families_note
    return evidence


def _reason(text: str, scratch: str, names: dict[str, str]) -> str:
    """One line, naming the nights' artifacts instead of our scratch paths (the downloads,
    and the wheels the diff extracted from them)."""
    if scratch:
        root = re.escape(scratch)
        inner = root + r"/work/wheel-size-inputs-[^/\s]+/\d+-(before|after)\.zip/"
        text = re.sub(inner, lambda m: f"{names[m.group(1)]}: ", text)
        text = re.sub(root + r"/(before|after)\.zip", lambda m: names[m.group(1)], text)
    return one_line(text, 500)
