"""Compare a pull request's wheels with a stored nightly of its base branch: the one built
from the nearest ancestor of its merge base (:mod:`wheel_size.check.mergebase`), else the newest.

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
from typing import Protocol

from wheel_size.check.budget import Breach, Budget
from wheel_size.check.document import CheckDocument, NightChoiceDocument, WheelCheckDocument
from wheel_size.check.limits import Standing, acknowledged_by, pr_breaches
from wheel_size.check.match import PrWheel, find_wheels
from wheel_size.check.mergebase import NightChoice
from wheel_size.diff.compare import diff_wheels
from wheel_size.diff.hip import hip_scanners
from wheel_size.diff.inputs import resolve_input
from wheel_size.diff.model import WheelDiff
from wheel_size.errors import InputError, WheelSizeError
from wheel_size.evidence.families import KernelFamilies, families_of_wheels
from wheel_size.history.history import History
from wheel_size.history.model import ArtifactRecord, RunRecord
from wheel_size.quota.model import Quota, QuotaOptions, quota_of
from wheel_size.units import to_mb
from wheel_size.variants import ArtifactNaming
from wheel_size.wheel.archive import open_source
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
    ceiling_ack: str | None = None  # the repository's reason for accepting ceiling breaches
    diff_limit: int = 15  # files listed per wheel in the comment
    quota: QuotaOptions | None = None  # the project quota, the pull request's wheels the set


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
    standing: list[Standing] = field(default_factory=list)  # ceilings the nightly is over
    # The kernel template families that moved (GPU wheels), or why they could not be read.
    families: KernelFamilies | None = None
    families_note: str | None = None
    # Installed size (wheel_size.installed): this wheel's, and the nightly's when known.
    installed_bytes: int | None = None
    base_installed_bytes: int | None = None

    @property
    def delta(self) -> int | None:
        return None if self.base_size is None else self.wheel.size - self.base_size

    def unaccepted(self, footer: str | None, ceiling_ack: str | None) -> list[Breach]:
        """The breaches no acknowledgement accepts: what fails the check."""
        return [b for b in self.breaches if acknowledged_by(b, footer, ceiling_ack) is None]

    def to_json(self) -> WheelCheckDocument:
        return {
            "wheel": self.wheel.label,
            "variant": self.wheel.variant,
            "python": self.wheel.python,
            "size_bytes": self.wheel.size,
            "size_mb": to_mb(self.wheel.size),
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
            "delta_mb": None if self.delta is None else to_mb(self.delta),
            "breaches": [
                {
                    "kind": b.kind,
                    "limit_bytes": b.limit_bytes,
                    "limit_pct": b.limit_pct,
                    "nightly_over": b.base_over,
                }
                for b in self.breaches
            ],
            "ceilings_already_exceeded": [
                {"limit_bytes": s.limit_bytes, "nightly_bytes": s.base_bytes} for s in self.standing
            ],
            "notes": list(self.notes),
            "diff": self.diff.to_json() if self.diff is not None else None,
            "installed_bytes": self.installed_bytes,
            "base_installed_bytes": self.base_installed_bytes,
        }


@dataclass
class CheckResult:
    checks: list[WheelCheck]
    notes: list[str]
    acknowledgement: str | None
    ceiling_ack: str | None = None
    compared_with: NightChoiceDocument | None = None  # which night, and why (NightChoice.to_json)
    quota: Quota | None = None  # with CheckOptions.quota: the quota, or why it is unknown
    quota_error: str | None = None

    @property
    def over_budget(self) -> list[WheelCheck]:
        return [c for c in self.checks if c.breaches]

    @property
    def failing(self) -> list[WheelCheck]:
        """The wheels over a budget that no acknowledgement accepts."""
        return [c for c in self.checks if c.unaccepted(self.acknowledgement, self.ceiling_ack)]

    @property
    def failed(self) -> bool:
        """Over a budget and not acknowledged (PyPI's limit never is): what fails the check."""
        return bool(self.failing)

    def to_json(self) -> CheckDocument:
        return {
            "failed": self.failed,
            "acknowledgement": self.acknowledgement,
            "ceiling_ack": self.ceiling_ack,
            "over_budget": [c.wheel.label for c in self.over_budget],
            "failing": [c.wheel.label for c in self.failing],
            "notes": list(self.notes),
            "compared_with": self.compared_with,
            "wheels": [c.to_json() for c in self.checks],
        }


def newest_base(
    history: History, artifact: str, night: NightChoice | None = None
) -> NightlyBase | None:
    """The newest stored night with an artifact named ``artifact`` (only the run of the
    ``night`` chosen for the merge base, when one was: its date and its base commit)."""
    on = night.date if night is not None else None
    for day in sorted(history.by_date(), reverse=True):
        if on is not None and day != on:
            continue
        for run in history.runs_on(day):
            if night is not None and on is not None and run.base_sha != night.base_sha:
                continue
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


def _installed(path: Path) -> int | None:
    """The wheel's installed size from its central directory; None when it cannot be read
    (the size comparison goes on; the diff says what is wrong with the wheel)."""
    from wheel_size.installed import FileRanges, installed_size

    try:
        found = installed_size(FileRanges(path), str(path))
    except (WheelSizeError, OSError):
        return None
    return None if found is None else found.installed_bytes


class _Unavailable(Exception):
    pass


class _Paths:
    """Runner-local paths as the comment may name them: the pull request's wheels by their
    labels, the nightly's files by their artifact, temporary folders not at all."""

    def __init__(self) -> None:
        self._names: dict[str, str] = {}

    def name(self, path: Path, as_: str) -> None:
        for form in {str(path), str(path.absolute()), str(path.resolve())}:
            self._names[form] = as_

    def __call__(self, text: str) -> str:
        for path in sorted(self._names, key=len, reverse=True):
            text = text.replace(path, self._names[path])
        return text


def _compare_contents(
    check: WheelCheck, artifacts: NightlyArtifacts, work: Path, index: int
) -> None:
    """Diff the wheel with the nightly's; a problem is worded as the side it belongs to."""
    base = check.base
    assert base is not None
    what = f"nightly artifact {base.artifact.name} of {base.date}"
    ours = f"this pull request's wheel {check.wheel.label}"
    paths = _Paths()
    paths.name(check.wheel.path, check.wheel.label)
    folder = work / str(index)
    paths.name(folder, what)
    try:
        open_source(check.wheel.path).close()
    except WheelSizeError as exc:
        check.notes.append(f"{ours} cannot be read ({paths(str(exc))}): only its size is compared")
        return
    if base.artifact.expired:
        check.notes.append(f"{what} has expired: sizes compared with its stored size only")
        return
    try:
        folder.mkdir()
        downloaded = artifacts.download(base.run.run_id, base.artifact.name, folder / "a.zip")
        base_wheel = _base_wheel(downloaded, check.wheel, folder)
    except (WheelSizeError, _Unavailable) as exc:
        check.notes.append(f"{what} could not be compared ({paths(str(exc))}): sizes only")
        return
    paths.name(base_wheel, f"nightly {base.date} {base_wheel.name}")
    check.base_size = base_wheel.stat().st_size  # wheel against wheel from here on
    check.base_basis = "wheel"
    check.base_installed_bytes = _installed(base_wheel) or check.base_installed_bytes
    try:
        check.diff = diff_wheels(
            base_wheel,
            check.wheel.path,
            old_label=f"nightly {base.date}",
            new_label=f"PR {check.wheel.label}",
            scanners=hip_scanners(),
        )
    except WheelSizeError as exc:
        check.notes.append(
            f"{ours} and {what} could not be compared file by file ({paths(str(exc))}): sizes only"
        )
        return
    check.diff.problems[:] = [paths(p) for p in check.diff.problems]
    for changed in check.diff.files:
        changed.problems[:] = [paths(p) for p in changed.problems]
    check.families, note = families_of_wheels(base_wheel, check.wheel.path, check.diff)
    check.families_note = paths(note) if note else None


def _shown(path: Path) -> str:
    """A path the user gave, relative to the working directory (the workspace) when under it."""
    try:
        return path.absolute().relative_to(Path.cwd()).as_posix() or "."
    except ValueError:
        return path.as_posix()


def run_check(
    options: CheckOptions,
    history: History,
    artifacts: NightlyArtifacts | None = None,
    night: NightChoice | None = None,
) -> CheckResult:
    """Check every wheel under ``options.wheels``; never raises for missing data (no night,
    no variant), but no wheel at all is bad input (InputError, exit 2).

    ``night`` is the stored night chosen for the pull request's merge base; without one (or
    when it names none) each wheel is compared with the newest night that has its artifact.
    """
    wheels = find_wheels(options.wheels, options.naming)
    result = CheckResult([], [], options.acknowledgement, options.ceiling_ack)
    on = night.date if night is not None else None
    if night is not None:
        result.compared_with = night.to_json(history.last_date())
        sentence = night.sentence(history.last_date())
        if sentence and history.last_date() is not None:
            result.notes.append(sentence)
    if not wheels:
        # Bad input, as a glob that matches nothing is: exit 2 on the command line and in
        # the Action alike, never a green check of nothing.
        given = ", ".join(_shown(p) for p in options.wheels) or "nothing"
        raise InputError(f"no wheels found in {given}: give the pull request's .whl files or "
                         "the folders its artifacts were downloaded to")  # fmt: skip
    if history.last_date() is None:
        result.notes.append("no nightly is stored yet: only the ceilings are checked")
    with tempfile.TemporaryDirectory(prefix="wheel-size-check-") as tmp:
        for index, wheel in enumerate(wheels):
            check = WheelCheck(wheel, installed_bytes=_installed(wheel.path))
            result.checks.append(check)
            if wheel.variant is None:
                check.notes.append(wheel.unmatched or "no variant")
            else:
                python = wheel.python or options.naming.python
                naming = ArtifactNaming(options.naming.pattern, python)
                artifact = naming.artifact(wheel.variant)
                check.base = newest_base(history, artifact, night)
                if check.base is None and on is not None:
                    check.notes.append(
                        f"the nightly of {on} (the merge base's) has no artifact {artifact}: "
                        "not compared"
                    )
                elif check.base is None and history.last_date() is not None:
                    check.notes.append(f"no stored nightly has an artifact {artifact}")
                if check.base is not None:
                    check.base_size = check.base.artifact.size_in_bytes
                    check.base_basis = "artifact"
                    check.base_installed_bytes = check.base.artifact.installed_bytes
                    if artifacts is not None:
                        _compare_contents(check, artifacts, Path(tmp), index)
            check.breaches, check.standing = pr_breaches(
                options.budget, wheel.variant, wheel.size, check.base_size
            )
    if options.quota is not None:
        release = [(c.wheel.path.name, c.wheel.size) for c in result.checks]
        result.quota, result.quota_error = release_quota(options.quota, release)
    return result


def release_quota(
    options: QuotaOptions, release: list[tuple[str, int]]
) -> tuple[Quota | None, str | None]:
    """The project quota once ``release`` is uploaded, or why it is unknown (one line)."""
    from wheel_size.quota.index import fetch_project_files

    try:
        stored = fetch_project_files(options.index_url, options.project, options.timeout)
    except WheelSizeError as exc:
        return None, str(exc)
    return quota_of(options, stored, release), None
