"""Compare a pull request's wheels with the newest stored nightly of its base branch.

Sizes come from the data branch (every night's artifact sizes); contents come from the
nightly's artifact when it can still be downloaded, which also makes the size comparison exact
(wheel against wheel rather than against the artifact zip that wraps it). Whatever cannot be
had (no stored night, an expired artifact, a wheel of no tracked variant) becomes a note, and
the sizes are compared as far as the data allows.
"""

from __future__ import annotations

import datetime as dt
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from wheel_size.check.budget import MB, Breach, Budget
from wheel_size.check.match import PrWheel, find_wheels
from wheel_size.diff.compare import diff_wheels
from wheel_size.diff.hip import hip_scanners
from wheel_size.diff.inputs import resolve_input
from wheel_size.diff.model import WheelDiff
from wheel_size.errors import WheelSizeError
from wheel_size.history.history import History
from wheel_size.history.model import ArtifactRecord, RunRecord
from wheel_size.variants import ArtifactNaming
from wheel_size.wheel.filename import parse_wheel_name

__all__ = ["CheckOptions", "CheckResult", "NightlyArtifacts", "WheelCheck", "run_check"]


class NightlyArtifacts(Protocol):
    """Downloads one artifact of a stored nightly run (``github.artifacts`` implements it)."""

    def download(self, run_id: int, artifact: str, dest: Path) -> Path: ...


@dataclass(frozen=True)
class CheckOptions:
    wheels: Sequence[Path]
    naming: ArtifactNaming = field(default_factory=ArtifactNaming)
    budget: Budget = field(default_factory=Budget)
    acknowledgement: str | None = None  # the reason of a Wheel-Size: footer, if any
    diff_limit: int = 15  # files listed per wheel in the comment


@dataclass(frozen=True)
class NightlyBase:
    """The stored night a wheel is compared with."""

    date: dt.date
    run: RunRecord
    artifact: ArtifactRecord


@dataclass
class WheelCheck:
    wheel: PrWheel
    base: NightlyBase | None = None
    base_size: int | None = None
    base_basis: str | None = None  # "wheel" (downloaded) or "artifact" (stored size)
    diff: WheelDiff | None = None
    notes: list[str] = field(default_factory=list)
    breaches: list[Breach] = field(default_factory=list)

    @property
    def delta(self) -> int | None:
        return None if self.base_size is None else self.wheel.size - self.base_size

    def to_json(self) -> dict[str, Any]:
        return {
            "wheel": self.wheel.label,
            "variant": self.wheel.variant,
            "python": self.wheel.python,
            "size_bytes": self.wheel.size,
            "size_mb": round(self.wheel.size / MB, 3),
            "base": None
            if self.base is None
            else {
                "date": self.base.date.isoformat(),
                "run_id": self.base.run.run_id,
                "head_sha": self.base.run.head_sha,
                "artifact": self.base.artifact.name,
                "size_bytes": self.base_size,
                "basis": self.base_basis,
            },
            "delta_bytes": self.delta,
            "delta_mb": None if self.delta is None else round(self.delta / MB, 3),
            "breaches": [
                {"kind": b.kind, "limit_bytes": b.limit_bytes, "limit_pct": b.limit_pct}
                for b in self.breaches
            ],
            "notes": list(self.notes),
            "diff": self.diff.to_json() if self.diff is not None else None,
        }


@dataclass
class CheckResult:
    checks: list[WheelCheck]
    notes: list[str]
    acknowledgement: str | None

    @property
    def over_budget(self) -> list[WheelCheck]:
        return [c for c in self.checks if c.breaches]

    @property
    def failed(self) -> bool:
        """Over a budget and not acknowledged: what fails the check."""
        return bool(self.over_budget) and self.acknowledgement is None

    def to_json(self) -> dict[str, Any]:
        return {
            "failed": self.failed,
            "acknowledgement": self.acknowledgement,
            "over_budget": [c.wheel.label for c in self.over_budget],
            "notes": list(self.notes),
            "wheels": [c.to_json() for c in self.checks],
        }


def newest_base(history: History, artifact: str) -> NightlyBase | None:
    """The newest stored night with an artifact named ``artifact``."""
    for day in sorted(history.by_date(), reverse=True):
        for run in history.runs_on(day):
            for record in run.artifacts:
                if record.name == artifact:
                    return NightlyBase(day, run, record)
    return None


def _base_wheel(artifact_zip: Path, wheel: PrWheel, work: Path) -> Path:
    """The wheel inside the nightly's artifact that corresponds to ``wheel``."""
    inside = resolve_input(artifact_zip, work)
    wanted = parse_wheel_name(wheel.path.name)
    same = [
        w
        for w in inside
        if parse_wheel_name(w.filename).distribution == wanted.distribution
        and parse_wheel_name(w.filename).python_tags == wanted.python_tags
    ]
    if len(same) != 1:
        names = ", ".join(w.filename for w in inside) or "none"
        raise _Unavailable(f"no single {wanted.distribution} wheel in it (holds: {names})")
    return same[0].path


class _Unavailable(Exception):
    pass


def _compare_contents(
    check: WheelCheck, artifacts: NightlyArtifacts, work: Path, index: int
) -> None:
    base = check.base
    assert base is not None
    what = f"nightly artifact {base.artifact.name} of {base.date}"
    if base.artifact.expired:
        check.notes.append(f"{what} has expired: sizes compared with its stored size only")
        return
    try:
        folder = work / str(index)
        folder.mkdir()
        downloaded = artifacts.download(base.run.run_id, base.artifact.name, folder / "a.zip")
        base_wheel = _base_wheel(downloaded, check.wheel, folder)
        check.diff = diff_wheels(
            base_wheel,
            check.wheel.path,
            old_label=f"nightly {base.date}",
            new_label=check.wheel.label,
            scanners=hip_scanners(),
        )
        check.base_size = base_wheel.stat().st_size
        check.base_basis = "wheel"
    except (WheelSizeError, _Unavailable) as exc:
        check.notes.append(f"{what} could not be compared ({exc}): sizes only")


def run_check(
    options: CheckOptions, history: History, artifacts: NightlyArtifacts | None = None
) -> CheckResult:
    """Check every wheel under ``options.wheels``; never raises for missing data."""
    wheels = find_wheels(options.wheels, options.naming)
    result = CheckResult([], [], options.acknowledgement)
    if not wheels:
        given = ", ".join(str(p) for p in options.wheels) or "nothing"
        result.notes.append(f"no wheels found in {given}: nothing to check")
        return result
    if history.last_date() is None:
        result.notes.append("no nightly is stored yet: only the ceilings are checked")
    with tempfile.TemporaryDirectory(prefix="wheel-size-check-") as tmp:
        for index, wheel in enumerate(wheels):
            check = WheelCheck(wheel)
            result.checks.append(check)
            if wheel.variant is None:
                check.notes.append(wheel.unmatched or "no variant")
            else:
                python = wheel.python or options.naming.python
                naming = ArtifactNaming(options.naming.pattern, python)
                artifact = naming.artifact(wheel.variant)
                check.base = newest_base(history, artifact)
                if check.base is None and history.last_date() is not None:
                    check.notes.append(f"no stored nightly has an artifact {artifact}")
                if check.base is not None:
                    check.base_size = check.base.artifact.size_in_bytes
                    check.base_basis = "artifact"
                    if artifacts is not None:
                        _compare_contents(check, artifacts, Path(tmp), index)
            check.breaches = options.budget.breaches(wheel.variant, wheel.size, check.base_size)
    return result
