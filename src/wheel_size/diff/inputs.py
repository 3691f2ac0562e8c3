"""Turn the OLD / NEW arguments into wheels: a wheel, or a zip artifact holding wheels.

GitHub artifacts are zips of whatever the job uploaded, so a nightly's artifact may hold one
wheel or several; wheels inside are streamed out to a work directory before comparing.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from wheel_size.errors import InvalidWheel, WheelSizeError
from wheel_size.wheel.archive import WheelSource, open_source
from wheel_size.wheel.filename import parse_wheel_name

__all__ = ["WheelInput", "pair_wheels", "resolve_input"]


@dataclass(frozen=True)
class WheelInput:
    """One wheel file to compare; ``label`` names it in reports (``artifact.zip!x.whl``)."""

    label: str
    path: Path

    @property
    def filename(self) -> str:
        return self.label.rsplit("!", 1)[-1].rsplit("/", 1)[-1]


def _is_wheel(source: WheelSource) -> bool:
    return any(
        m.name.split("/", 1)[0].endswith(".dist-info") and "/" in m.name for m in source.members
    )


def resolve_input(path: Path, workdir: Path) -> list[WheelInput]:
    """The wheels ``path`` stands for, extracting those inside an artifact zip into ``workdir``."""
    if path.is_dir():
        if any(p.is_dir() for p in path.glob("*.dist-info")):
            return [WheelInput(str(path), path)]  # an unpacked wheel
        wheels = sorted(path.glob("*.whl"))
        if not wheels:
            raise InvalidWheel(
                f"{path}: directory holds no *.whl files and is not an unpacked wheel"
            )
        return [WheelInput(str(w), w) for w in wheels]
    source = open_source(path)
    try:
        if _is_wheel(source):
            return [WheelInput(str(path), path)]
        inner = [m for m in source.members if m.name.endswith(".whl")]
        if not inner:
            raise InvalidWheel(
                f"{path}: not a wheel (no *.dist-info directory) and holds no *.whl files"
            )
        out: list[WheelInput] = []
        seen: set[str] = set()
        dest_dir = workdir / f"{len(list(workdir.iterdir()))}-{path.name}"
        dest_dir.mkdir(parents=True)
        for member in inner:
            base = PurePosixPath(member.name).name
            if base in seen:
                raise InvalidWheel(f"{path}: two wheels named {base!r} inside the artifact")
            seen.add(base)
            dest = dest_dir / base
            with source.open(member.name) as src, dest.open("wb") as dst:
                shutil.copyfileobj(src, dst, 1 << 20)
            out.append(WheelInput(f"{path}!{member.name}", dest))
        return out
    finally:
        source.close()


def _key(name: str, level: int) -> tuple[object, ...]:
    try:
        parsed = parse_wheel_name(name)
    except WheelSizeError:
        return ("?", name)
    if level == 0:
        tags = ".".join(sorted(str(t) for t in parsed.tags))
        return (parsed.distribution, parsed.local_label, tags, parsed.variant_label)
    return (
        parsed.distribution,
        parsed.local_label,
        tuple(parsed.platform_tags),
        parsed.variant_label,
    )


def pair_wheels(
    old: list[WheelInput], new: list[WheelInput]
) -> tuple[list[tuple[WheelInput, WheelInput]], list[WheelInput], list[WheelInput]]:
    """Pair wheels by name with the version left out (nightlies differ only there).

    Exact tags first, then same platform; a single leftover on each side is paired anyway.
    Returns the pairs and the unpaired wheels of each side.
    """
    pairs: list[tuple[WheelInput, WheelInput]] = []
    left_old, left_new = list(old), list(new)
    for level in (0, 1):
        by_key: dict[tuple[object, ...], list[WheelInput]] = {}
        for item in left_new:
            by_key.setdefault(_key(item.filename, level), []).append(item)
        still_old = []
        for item in left_old:
            bucket = by_key.get(_key(item.filename, level))
            if bucket:
                match = bucket.pop(0)
                pairs.append((item, match))
                left_new.remove(match)
            else:
                still_old.append(item)
        left_old = still_old
    if len(left_old) == 1 and len(left_new) == 1:
        pairs.append((left_old.pop(), left_new.pop()))
    return pairs, left_old, left_new
