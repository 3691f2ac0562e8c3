"""What a path given on the command line stands for: a wheel, an unpacked wheel, a folder of
wheels, or a zip artifact holding wheels (diff, audit and check all take these).

GitHub artifacts are zips of whatever the job uploaded, so a nightly's artifact may hold one
wheel or several; wheels inside are streamed out to a work directory before they are read.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from wheel_size.errors import InvalidWheel
from wheel_size.wheel.archive import DirectorySource, WheelSource, ZipSource, open_source

__all__ = ["WheelInput", "resolve_input"]


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


def resolve_input(
    path: Path, workdir: Path, *, opened: dict[Path, ZipSource | DirectorySource] | None = None
) -> list[WheelInput]:
    """The wheels ``path`` stands for, extracting those inside an artifact zip into ``workdir``.

    With ``opened``, a wheel file's source, opened (and checked) to tell it from an artifact,
    is left open there under ``path`` for the caller to read and close, not opened twice."""
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
    kept = False
    try:
        if _is_wheel(source):
            if opened is not None:
                opened[path] = source  # the caller reads and closes it
                kept = True
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
        if not kept:
            source.close()
