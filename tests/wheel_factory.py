"""Build real wheel files for tests (diff and audit): WHEEL, METADATA, RECORD and payload."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from collections.abc import Mapping
from pathlib import Path

from wheel_size.wheel.writer import WheelEntry, write_wheel


def make_wheel(
    directory: Path,
    distribution: str,
    version: str,
    tag: str = "py3-none-any",
    files: Mapping[str, bytes | Path] | None = None,
    *,
    record: bool = True,
    variant: str | None = None,
    filename: str | None = None,
) -> Path:
    """Write ``{distribution}-{version}-{tag}.whl`` into ``directory`` and return its path."""
    dist_info = f"{distribution}-{version}.dist-info"
    pure = tag.endswith("-none-any")
    wheel_text = (
        "Wheel-Version: 1.0\nGenerator: wheel-size-tests\n"
        f"Root-Is-Purelib: {'true' if pure else 'false'}\n"
    )
    py, abi, plats = tag.split("-")
    for plat in plats.split("."):
        for p in py.split("."):
            wheel_text += f"Tag: {p}-{abi}-{plat}\n"
    metadata = f"Metadata-Version: 2.1\nName: {distribution}\nVersion: {version}\n"
    entries: list[WheelEntry] = []
    for path, content in (files or {}).items():
        if isinstance(content, Path):
            entries.append(
                WheelEntry(path, file=content, mode=0o755 if path.endswith(".so") else 0o644)
            )
        else:
            entries.append(WheelEntry(path, data=content))
    entries.append(WheelEntry(f"{dist_info}/WHEEL", data=wheel_text.encode()))
    entries.append(WheelEntry(f"{dist_info}/METADATA", data=metadata.encode()))
    name = filename or f"{distribution}-{version}-{tag}{'-' + variant if variant else ''}.whl"
    dest = directory / name
    write_wheel(dest, entries, dist_info=dist_info)
    if not record:
        _drop_record(dest, f"{dist_info}/RECORD")
    return dest


def _drop_record(path: Path, record_name: str) -> None:
    tmp = path.with_suffix(".tmp")
    with zipfile.ZipFile(path) as src, zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            if info.filename != record_name:
                dst.writestr(info, src.read(info.filename))
    tmp.replace(path)


def make_artifact(path: Path, wheels: list[Path]) -> Path:
    """A zip as GitHub's artifact download returns it: the uploaded files at its root."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for wheel in wheels:
            archive.write(wheel, wheel.name)
    return path


def make_1747_matrix(dest: Path) -> Path:
    """The torchao wheel matrix of pytorch/ao#1747 (scripts/make_1747_matrix.py) under ``dest``:
    one folder of wheels per build job."""
    script = Path(__file__).resolve().parents[1] / "scripts" / "make_1747_matrix.py"
    subprocess.run([sys.executable, str(script), str(dest)], check=True, capture_output=True)
    return dest
