"""The whole download, per night (``track --deps``): each new night's wheel of every watched
variant resolved with its dependencies, stored beside the runs, and a pin change that moves
the download named as its own event.

Per night and variant: the artifact is downloaded (one artifact, bounded by
``max_download_mb``), its wheel resolved by :func:`wheel_size.deps.run.resolved_set` for the
wheel's own platform and Python tags, and the set stored as
``deps/<variant>/<date>.json``. The night is compared with the newest stored night before it:
when dependencies' pins moved and what they moved crosses the jump thresholds, the event
names each dependency, its versions and its bytes — a jump of the download the wheel itself
does not explain. Anything that fails (an expired artifact, a platform that does not resolve,
an index that times out) is one warning line; the sizes are stored all the same.
"""

from __future__ import annotations

import datetime as dt
import json
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from wheel_size.deps.resolve import ResolveOptions
from wheel_size.deps.run import PinChange, ResolvedSet, pin_changes, resolved_set
from wheel_size.deps.sizes import SizeCache
from wheel_size.errors import WheelSizeError
from wheel_size.history.model import RunRecord
from wheel_size.ports import ArtifactDownloads, RunArtifact
from wheel_size.units import in_mb
from wheel_size.wheel.filename import parse_wheel_name
from wheel_size.wheel.inputs import resolve_input

__all__ = ["DepsNight", "NightlyDeps", "deps_events", "night_sets", "stored_path"]

SCHEMA = "wheel-size/deps"


@dataclass(frozen=True)
class NightlyDeps:
    """``index_url``: the simple index pip resolves against; ``max_download_mb``: the
    artifact downloads (one per variant and new night)."""

    index_url: str = "https://pypi.org/simple"
    max_download_mb: int = 4096
    cache: Path | None = None  # sizes by pin, kept across runs (a runner cache)


@dataclass(frozen=True)
class DepsNight:
    variant: str
    date: dt.date
    run_id: int
    wheel: str
    resolved: ResolvedSet
    # The artifact's installed size, read from the download already made (no second read)
    artifact: str = ""
    installed_bytes: int | None = None

    def to_text(self) -> str:
        return (
            json.dumps(
                {
                    "schema": SCHEMA,
                    "variant": self.variant,
                    "date": self.date.isoformat(),
                    "run_id": self.run_id,
                    "wheel": self.wheel,
                    "set": self.resolved.to_json(),
                },
                indent=1,
            )
            + "\n"
        )


def stored_path(variant: str, day: dt.date) -> str:
    return f"deps/{variant}/{day.isoformat()}.json"


def _platform(filename: str) -> ResolveOptions:
    name = parse_wheel_name(filename)
    platforms = tuple(p for p in name.platform_tags if p != "any")
    cpython = [t for t in name.python_tags if t.startswith("cp") and t[2:].isdigit()]
    version = f"{cpython[0][2]}.{cpython[0][3:]}" if cpython else None
    return ResolveOptions(
        platforms=platforms, python_version=version, implementation="cp" if cpython else None
    )


def night_sets(
    github: ArtifactDownloads,
    repository: str,
    runs: Sequence[RunRecord],
    variants: dict[str, str],
    options: NightlyDeps,
    warnings: list[str],
) -> list[DepsNight]:
    """The resolved set of each new night's watched wheels (``variants``: variant -> artifact)."""
    cache = SizeCache(options.cache)
    found: list[DepsNight] = []
    with tempfile.TemporaryDirectory(prefix="wheel-size-deps-night-") as tmp:
        for run in runs:
            for variant, name in variants.items():
                a = run.artifact(name)
                if a is None or a.expired or a.id is None:
                    continue
                where = f"the whole download of {variant} on {run.date}"
                folder = Path(tmp) / f"{run.run_id}-{variant}"
                folder.mkdir()
                remote = RunArtifact(
                    a.id, a.name, a.size_in_bytes, a.expired,
                    f"/repos/{repository}/actions/artifacts/{a.id}/zip", a.digest, run.run_id,
                )  # fmt: skip
                try:
                    zipped = github.download_artifact(
                        remote, folder / "a.zip", max_bytes=options.max_download_mb << 20
                    )
                    wheels = [w for w in resolve_input(zipped, folder) if w.path.suffix == ".whl"]
                    if len(wheels) != 1:
                        raise WheelSizeError(f"{len(wheels)} wheels in the artifact, not one")
                    wheel = wheels[0]
                    resolve = _platform(wheel.filename)
                    resolve = ResolveOptions(
                        index_url=options.index_url,
                        platforms=resolve.platforms,
                        python_version=resolve.python_version,
                        implementation=resolve.implementation,
                    )
                    got = resolved_set([wheel.path], resolve, cache)
                except WheelSizeError as exc:
                    warnings.append(f"{where} not read: {exc}")
                    continue
                if got.error:
                    warnings.append(f"{where} not resolved: {got.error}")
                installed = _installed(zipped, f"artifact {a.name} of run {run.run_id}", warnings)
                found.append(
                    DepsNight(variant, run.date, run.run_id, wheel.filename, got, a.name, installed)
                )
    cache.save()
    return found


def _installed(zipped: Path, where: str, warnings: list[str]) -> int | None:
    """The installed size of the artifact just downloaded (it is read already)."""
    from wheel_size.installed import FileRanges, installed_size

    try:
        found = installed_size(FileRanges(zipped), where)
    except WheelSizeError as exc:
        warnings.append(f"installed size not read: {exc}")
        return None
    return None if found is None else found.installed_bytes


@dataclass
class DepsEvent:
    variant: str
    date: dt.date
    before: dt.date
    total_delta: int
    changes: list[PinChange] = field(default_factory=list)

    def text(self) -> str:
        moved = "; ".join(
            f"{c.name} {c.old_version or '(new)'} → {c.new_version or '(gone)'} "
            f"({in_mb(c.delta_bytes, signed=True, digits=2)} MB)"
            for c in self.changes
        )
        return (
            f"the whole download of {self.variant} moved "
            f"{in_mb(self.total_delta, signed=True, digits=2)} MB on {self.date} (against "
            f"{self.before}) because dependency pins moved: {moved}"
        )


def _read_set(path: Path) -> ResolvedSet | None:
    try:
        data = json.loads(path.read_text())
        s = data["set"]
        files = tuple(
            (str(f["name"]), str(f["version"]), str(f["filename"]), int(f["bytes"]),
             bool(f["requested"]))
            for f in s["files"]
        )  # fmt: skip
        return ResolvedSet(str(s["platform"]), files, s.get("error"))
    except (OSError, ValueError, KeyError, TypeError):
        return None  # a stored file that cannot be read is no baseline


def deps_events(
    root: Path, nights: Sequence[DepsNight], is_jump: Callable[[int, int], bool]
) -> list[DepsEvent]:
    """Each night whose dependencies' pins moved by a jump, against the newest stored night
    of its variant before it (read from the store at ``root``)."""
    events = []
    for night in nights:
        if night.resolved.error:
            continue
        folder = root / "deps" / night.variant
        earlier = sorted(
            p for p in folder.glob("*.json") if p.stem < night.date.isoformat()
        ) if folder.is_dir() else []  # fmt: skip
        before = _read_set(earlier[-1]) if earlier else None
        if before is None or before.error or before.total_bytes is None:
            continue
        changes = pin_changes(before, night.resolved)
        moved = sum(c.delta_bytes for c in changes)
        if changes and is_jump(moved, before.total_bytes):
            total = (night.resolved.total_bytes or 0) - before.total_bytes
            events.append(
                DepsEvent(night.variant, night.date, dt.date.fromisoformat(earlier[-1].stem),
                          total, changes)
            )  # fmt: skip
    return events
