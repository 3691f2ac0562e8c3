"""Which tracked variant each wheel of a pull request's build belongs to.

A wheel is matched by the artifact it came in when the build uploaded it under the nightly's
artifact pattern (``manywheel-py3_12-cuda12_8/…whl``), else by its local version label
(``+cu128``, ``+rocm6.4``, ``+cpu``, ``+xpu``), as PyTorch's wheels carry it. Its Python comes
from its tag (``cp312`` → ``py3_12``).
"""

from __future__ import annotations

import re
import stat
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from wheel_size.errors import InputError, InvalidWheel
from wheel_size.variants import ArtifactNaming, canonical_python, canonical_variant
from wheel_size.wheel.filename import parse_wheel_name

__all__ = ["PrWheel", "find_wheels"]

_CPYTHON = re.compile(r"^cp(\d)(\d+)$")


@dataclass(frozen=True)
class PrWheel:
    """One wheel of the pull request's build and the variant it was matched to (or why not)."""

    path: Path
    label: str  # what the comment calls it: the artifact folder and the file name
    size: int
    variant: str | None
    python: str | None
    unmatched: str | None = None  # why no variant could be matched


def _python_of(tags: Sequence[str]) -> str | None:
    for tag in tags:
        m = _CPYTHON.match(tag)
        if m:
            return canonical_python(f"{m.group(1)}.{m.group(2)}")
    return None


def _variant_of(path: Path, root: Path, local: str | None, naming: ArtifactNaming) -> str | None:
    relative = path.relative_to(root).parts if path != root else ()
    for folder in relative[:-1]:  # the artifact folders the wheel was downloaded into
        from_artifact = naming.variant_of(folder)
        if from_artifact is not None:
            return canonical_variant(from_artifact) or from_artifact
        for python in ("py3_9", "py3_10", "py3_11", "py3_12", "py3_13", "py3_14"):
            other = ArtifactNaming(naming.pattern, python).variant_of(folder)
            if other is not None:
                return canonical_variant(other) or other
    return canonical_variant(local) if local else None


def _wheel_files(path: Path) -> list[tuple[Path, Path]]:
    """(wheel, root it was found under) for a wheel file or a folder searched recursively."""
    try:
        mode = path.stat().st_mode
    except OSError as exc:
        raise InputError(f"{path}: {exc.strerror or exc}") from None
    if stat.S_ISDIR(mode):
        found = sorted(p for p in path.rglob("*.whl") if p.is_file())
        return [(p, path) for p in found]
    if not stat.S_ISREG(mode):
        raise InvalidWheel(f"{path}: not a regular file or a folder")
    return [(path, path.parent)]


def find_wheels(paths: Sequence[Path], naming: ArtifactNaming) -> list[PrWheel]:
    """Every wheel under ``paths`` with its variant and Python, in a stable order."""
    wheels: list[PrWheel] = []
    seen: set[Path] = set()
    for given in paths:
        for path, root in _wheel_files(given):
            if path.resolve() in seen:
                continue
            seen.add(path.resolve())
            label = path.relative_to(root).as_posix()
            name = parse_wheel_name(path.name)
            python = _python_of(name.python_tags) or naming.python
            variant = _variant_of(path, root, name.local_label, naming)
            why = None
            if variant is None:
                why = (
                    "no variant: neither an artifact folder matching "
                    f"{naming.pattern!r} nor a local version label such as +cu128"
                )
            wheels.append(PrWheel(path, label, path.stat().st_size, variant, python, why))
    return wheels
