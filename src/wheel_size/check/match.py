"""Which tracked variant each wheel of a pull request's build belongs to.

A wheel is matched by the artifact it came in when the build uploaded it under the nightly's
artifact pattern (``manywheel-py3_12-cuda12_8/…whl``), else by its local version label
(``+cu128``, ``+rocm6.4``, ``+cpu``, ``+xpu``), as PyTorch's wheels carry it. Its Python comes
from its tags, the ABI tag first: a free-threaded ``cp313-cp313t`` wheel is ``py3_13t`` and is
compared with the free-threaded nightly, never with the GIL ``cp313`` one; an ``abi3`` wheel
takes the Python of its artifact (or of the naming). Platform, accelerator and Python ABI are
read into one :class:`~wheel_size.variants.VariantKey` (issue 28 item 5), which the nightly's
artifact must match exactly.

A wheel whose own ``WHEEL`` metadata declares other tags than its file name, or whose tags
contradict the artifact it came in, is not compared: one line says which disagree.
"""

from __future__ import annotations

import email.parser
import stat
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from packaging.tags import parse_tag

from wheel_size.errors import InputError, InvalidWheel, WheelSizeError
from wheel_size.variants import (
    ArtifactNaming,
    VariantKey,
    canonical_python,
    canonical_variant,
    variant_key,
    wheel_key,
)
from wheel_size.wheel.archive import open_source
from wheel_size.wheel.filename import WheelName, parse_wheel_name

__all__ = ["PrWheel", "declared_tags", "find_wheels"]


@dataclass(frozen=True)
class PrWheel:
    """One wheel of the pull request's build and the variant it was matched to (or why not)."""

    path: Path
    label: str  # what the comment calls it: the artifact folder and the file name
    size: int
    variant: str | None
    python: str | None
    unmatched: str | None = None  # why no variant could be matched
    key: VariantKey | None = None  # platform, accelerator and Python ABI, from its tags


def declared_tags(path: Path) -> set[str] | None:
    """The tags the wheel's ``*.dist-info/WHEEL`` declares (None: unreadable or none said;
    the size comparison reports an unreadable wheel itself)."""
    try:
        with open_source(path) as source:
            name = f"{source.dist_info()}/WHEEL"
            meta = email.parser.BytesParser().parsebytes(source.read(name), headersonly=True)
    except (WheelSizeError, OSError):
        return None
    tags: set[str] = set()
    for line in meta.get_all("Tag") or []:
        try:
            tags |= {str(t) for t in parse_tag(str(line).strip())}
        except ValueError:
            return None
    return tags or None


def _shown_tags(tags: set[str]) -> str:
    return ", ".join(sorted(tags)[:4]) + (" …" if len(tags) > 4 else "")


def _tag_disagreement(path: Path, name: WheelName) -> str | None:
    declared = declared_tags(path)
    named = {str(t) for t in name.tags}
    if declared is None or declared == named:
        return None
    return (
        f"its WHEEL metadata declares the tags {_shown_tags(declared)} but its file name says "
        f"{_shown_tags(named)}: not compared"
    )


def _artifact_of(path: Path, root: Path, naming: ArtifactNaming) -> tuple[str, str | None, str]:
    """(folder, python, variant) of the innermost artifact folder the wheel came in."""
    relative = path.relative_to(root).parts if path != root else ()
    for folder in reversed(relative[:-1]):
        parts = naming.split_artifact(folder)
        if parts is not None:
            return folder, parts[0], parts[1]
    raise LookupError


def _folder_disagreement(folder: str, folder_python: str | None, own: VariantKey) -> str | None:
    """Why the wheel's tags contradict the artifact it came in, or None."""
    said = variant_key(folder)
    if folder_python and own.python and canonical_python(own.python) != folder_python:
        return (
            f"its tags say Python {own.python_abi} but it came in artifact {folder} "
            f"({folder_python}): not compared"
        )
    if own.os != "any" and said.os != own.os and said.os != "linux":
        return (
            f"its platform tags say {own.os} but it came in artifact {folder} ({said.os}): "
            "not compared"
        )
    if own.kind != "other" and said.kind != "other" and (own.kind, own.version) != (
        said.kind, said.version or own.version
    ):  # fmt: skip
        return (
            f"its local version label says {own.label} but it came in artifact {folder} "
            f"({said.label}): not compared"
        )
    return None


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


def _one(path: Path, root: Path, naming: ArtifactNaming) -> PrWheel:
    label = path.relative_to(root).as_posix()
    size = path.stat().st_size
    name = parse_wheel_name(path.name)
    own = wheel_key(name.python_tags, name.abi_tags, name.platform_tags, name.local_label)
    why = _tag_disagreement(path, name)
    found: str | None
    folder_python: str | None = None
    try:
        folder, folder_python, in_folder = _artifact_of(path, root, naming)
    except LookupError:
        found = canonical_variant(name.local_label) if name.local_label else None
    else:
        found = canonical_variant(in_folder) or in_folder
        why = why or _folder_disagreement(folder, folder_python, own)
    python = canonical_python(own.python) if own.python else folder_python or naming.python
    if found is None and why is None:
        why = (
            "no variant: neither an artifact folder matching "
            f"{naming.pattern!r} nor a local version label such as +cu128"
        )
    variant = None if why else found
    key = None
    if variant is not None:
        said = variant_key(variant)
        os_name = own.os if own.os != "any" else said.os
        key = VariantKey(
            label, said.kind, said.version, os_name, python.removeprefix("py").replace("_", "."),
            said.package, own.abi or said.abi, said.build,
        )  # fmt: skip
    return PrWheel(path, label, size, variant, python, why, key)


def find_wheels(paths: Sequence[Path], naming: ArtifactNaming) -> list[PrWheel]:
    """Every wheel under ``paths`` with its variant and Python, in a stable order."""
    wheels: list[PrWheel] = []
    seen: set[Path] = set()
    for given in paths:
        for path, root in _wheel_files(given):
            if path.resolve() in seen:
                continue
            seen.add(path.resolve())
            wheels.append(_one(path, root, naming))
    return wheels
