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
from wheel_size.ports import GitHubFailure
from wheel_size.ports.ancestry import RelatesCommits
from wheel_size.quota.model import Quota, QuotaOptions, quota_of
from wheel_size.units import to_mb
from wheel_size.variants import ArtifactNaming, variant_key, wheel_key
from wheel_size.wheel.archive import open_source
from wheel_size.wheel.filename import parse_wheel_name

__all__ = ["CheckOptions", "CheckResult", "NightlyArtifacts", "WheelCheck", "run_check"]


class NightlyArtifacts(Protocol):
    """Downloads one artifact of a stored nightly run (``check.pull_check.NightlyDownloads``
    implements it over the GitHub port)."""

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

    @property
    def not_checked(self) -> list[WheelCheck]:
        """The wheels no stored night was compared with (no usable night, no variant, a
        wheel whose tags disagree): never counted as within budget."""
        return [c for c in self.checks if c.base_size is None]

    @property
    def conclusion(self) -> str:
        """The check run's conclusion: ``failure`` over an unaccepted budget, ``neutral``
        when a wheel was not checked (never a pass on what was not compared), else
        ``success``."""
        if self.failed:
            return "failure"
        return "neutral" if self.not_checked else "success"

    def to_json(self) -> CheckDocument:
        return {
            "failed": self.failed,
            "conclusion": self.conclusion,
            "not_checked": [c.wheel.label for c in self.not_checked],
            "acknowledgement": self.acknowledgement,
            "ceiling_ack": self.ceiling_ack,
            "over_budget": [c.wheel.label for c in self.over_budget],
            "failing": [c.wheel.label for c in self.failing],
            "notes": list(self.notes),
            "compared_with": self.compared_with,
            "wheels": [c.to_json() for c in self.checks],
            "quota": None if self.quota is None else self.quota.to_json(),
            "quota_error": self.quota_error,
        }


def _matches(naming: ArtifactNaming, name: str, wheel: PrWheel) -> bool:
    """Whether artifact ``name`` holds ``wheel``'s build: its platform, accelerator and
    Python ABI as far as the name says them (:class:`~wheel_size.variants.VariantKey`)."""
    parts = naming.split_artifact(name)
    if parts is None or wheel.key is None or wheel.variant is None:
        return False
    python, variant = parts
    said = variant_key(variant)
    own = wheel.key
    own_python = wheel.python
    if python is not None and own_python is not None and python != own_python:
        return False
    if said.abi is not None and said.abi != own.abi:
        return False
    return (said.kind, said.version, said.os, said.package, said.build) == (
        own.kind, own.version, own.os, own.package, own.build
    )  # fmt: skip


def _artifact_in(
    run: RunRecord, naming: ArtifactNaming, wheel: PrWheel, exact: str
) -> ArtifactRecord | None:
    """The artifact of ``run`` that holds ``wheel``'s build: the pattern's own name for it
    when that matches, else the one other name that does (``manywheel-py3_12-cpu-aarch64``
    for an aarch64 ``+cpu`` wheel)."""
    named = [a for a in run.artifacts if a.name == exact]
    if named and _matches(naming, exact, wheel):
        return named[0]
    found = [a for a in run.artifacts if _matches(naming, a.name, wheel)]
    return found[0] if len(found) == 1 else None


def newest_base(
    history: History,
    artifact: str,
    night: NightChoice | None = None,
    *,
    wheel: PrWheel | None = None,
    naming: ArtifactNaming | None = None,
    before: dt.date | None = None,
) -> NightlyBase | None:
    """The newest stored night with an artifact named ``artifact`` (or, given ``wheel``, the
    artifact matching its build); only the run of the ``night`` chosen for the merge base
    when one was (its date and its base commit); only nights before ``before`` if given."""
    on = night.date if night is not None else None
    for day in sorted(history.by_date(), reverse=True):
        if (on is not None and day != on) or (before is not None and day >= before):
            continue
        runs = history.runs_on(day)
        runs = sorted(runs, key=lambda r: r.base_sha is None)  # a run that says its base first
        for run in runs:
            if night is not None and on is not None and run.base_sha != night.base_sha:
                continue
            if wheel is not None and naming is not None:
                record = _artifact_in(run, naming, wheel, artifact)
                if record is not None:
                    return NightlyBase(day, run, record)
                continue
            for record in run.artifacts:
                if record.name == artifact:
                    return NightlyBase(day, run, record)
    return None


def _apart(relates: RelatesCommits | None, base: NightlyBase, merge_base: str | None) -> str:
    """How far the stepped-back night's base lies before the merge base, in words."""
    if merge_base is None:
        return "its distance to this PR's merge base is unknown"
    if not base.run.base_sha:
        return "its distance to this PR's merge base is unknown: it records no base commit"
    if relates is None:
        return "its distance to this PR's merge base was not asked of GitHub"
    try:
        relation = relates.relate(base.run.base_sha, merge_base)
    except GitHubFailure as exc:
        return f"its distance to this PR's merge base is unknown ({exc})"
    if not relation.base_is_ancestor:
        return f"its base {base.run.base_sha[:7]} is not an ancestor of this PR's merge base"
    n = relation.ahead_by
    return f"{n} commit{'s' if n != 1 else ''} before this PR's merge base {merge_base[:7]}"


def _find_base(
    check: WheelCheck,
    history: History,
    naming: ArtifactNaming,
    night: NightChoice | None,
    relates: RelatesCommits | None,
) -> None:
    """Set ``check.base`` to the night to compare with, or say in a note why there is none."""
    wheel = check.wheel
    assert wheel.variant is not None
    artifact = ArtifactNaming(naming.pattern, wheel.python or naming.python).artifact(wheel.variant)
    if night is not None and night.mode == "merge-base" and night.date is None:
        return  # the result's note says why no night is usable: not checked
    check.base = newest_base(history, artifact, night, wheel=wheel, naming=naming)
    if check.base is not None or history.last_date() is None:
        return
    build = "" if wheel.key is None or wheel.key.os == "linux" else f" for {wheel.key.os}"
    if night is None or night.date is None:
        check.notes.append(f"no stored nightly has an artifact {artifact}{build}: not checked")
        return
    # The merge base's night lacks this build (a failed nightly job, a rename): the nearest
    # earlier stored night that has it, with how far its base lies from the merge base.
    earlier = newest_base(history, artifact, None, wheel=wheel, naming=naming, before=night.date)
    missing = f"the nightly of {night.date} (the merge base's) has no artifact {artifact}{build}"
    if earlier is None:
        check.notes.append(f"{missing}, nor does any earlier stored nightly: not checked")
        return
    apart = _apart(relates, earlier, night.merge_base_sha)
    if "not an ancestor" in apart:
        check.notes.append(f"{missing}; the nearest earlier one that has it, {earlier.date}: "
                           f"{apart}: not checked")  # fmt: skip
        return
    check.base = earlier
    check.notes.append(
        f"{missing}; compared with the nightly of {earlier.date}, the nearest earlier one "
        f"that has it ({apart})"
    )


def _base_wheel(artifact_zip: Path, wheel: PrWheel, work: Path) -> Path:
    """The wheel inside the nightly's artifact that is ``wheel``'s build: the same
    distribution, Python ABI (``cp313t`` is not ``cp313``; ``abi3`` only with ``abi3``) and
    platform (the manylinux level may differ: that is a change a PR can make)."""
    inside = resolve_input(artifact_zip, work)
    wanted = parse_wheel_name(wheel.path.name)
    own = wheel_key(wanted.python_tags, wanted.abi_tags, wanted.platform_tags, None)

    def same(filename: str) -> bool:
        name = parse_wheel_name(filename)
        key = wheel_key(name.python_tags, name.abi_tags, name.platform_tags, None)
        return name.distribution == wanted.distribution and (
            key.python, key.abi, key.os
        ) == (own.python, own.abi, own.os)  # fmt: skip

    matching = [w for w in inside if same(w.filename)]
    if len(matching) != 1:
        names = ", ".join(w.filename for w in inside) or "none"
        abi = own.python_abi or "py3"
        raise _Unavailable(
            f"no single {wanted.distribution} wheel for {abi} on {own.os} in it (holds: {names})"
        )
    return matching[0].path


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
    relates: RelatesCommits | None = None,
) -> CheckResult:
    """Check every wheel under ``options.wheels``; never raises for missing data (no night,
    no variant), but no wheel at all is bad input (InputError, exit 2).

    ``night`` is the stored night chosen for the pull request's merge base; without one (or
    when it names none) each wheel is compared with the newest night that has its artifact.
    """
    wheels = find_wheels(options.wheels, options.naming)
    result = CheckResult([], [], options.acknowledgement, options.ceiling_ack)
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
                _find_base(check, history, options.naming, night, relates)
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
