"""The input's file name, WHEEL and METADATA checked against each other before a split writes.

An index judges a wheel by its file name (PyPI refuses ``linux_x86_64``; pip selects by the
name's tags), so the outputs carry the tags and build tag of the input's *file name*: when
``WHEEL`` disagrees (cupy-rocm-7-0 14.2.0 is named ``manylinux2014_x86_64`` and says
``linux_x86_64`` inside) that is one warning naming both, and every output gets a ``WHEEL``
consistent with its name. A name or version that disagrees with METADATA is an error: which
one is right cannot be known, and the outputs pin each other by version.

The host wheel's ``WHEEL`` is written from checked fields only, never copied, so no
unvalidated ``Tag`` or ``Build`` line reaches an output.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, replace
from email.parser import BytesHeaderParser
from pathlib import Path

from packaging.utils import canonicalize_name
from packaging.version import Version

from wheel_size import __version__
from wheel_size.errors import InvalidWheel
from wheel_size.split.metadata import HostIdentity
from wheel_size.wheel.filename import (
    WheelName,
    parse_wheel_name,
    valid_build_tag,
)

__all__ = ["CheckedWheel", "check_wheel_file", "file_name_tags"]

_WHEEL_VERSION = re.compile(r"^\d{1,3}\.\d{1,3}\Z")
_GENERATOR = re.compile(r"^[\x20-\x7e]{1,200}\Z")


@dataclass(frozen=True)
class CheckedWheel:
    """The identity the outputs carry, the host's new WHEEL, and what disagreed."""

    identity: HostIdentity
    host_wheel: bytes
    warnings: tuple[str, ...]


def file_name_tags(name: WheelName) -> tuple[str, ...]:
    """Every tag a file name's compressed triple stands for, in the name's own order (so
    :attr:`HostIdentity.tag_string` composes the same triple again)."""
    stem = name.filename[: -len(".whl")].split("-")
    if name.variant_label is not None:
        stem = stem[:-1]
    python, abi, platform = stem[-3:]
    return tuple(
        "-".join(parts)
        for parts in itertools.product(python.split("."), abi.split("."), platform.split("."))
    )


def _one_header(headers: list[str], field: str, where: str) -> str | None:
    values = [str(v).strip() for v in headers]
    if len(values) > 1:
        raise InvalidWheel(f"{where}: WHEEL has {len(values)} {field} lines, want at most one")
    return values[0] if values else None


def _parsed_name(input_path: Path) -> WheelName | None:
    """The input's parsed file name; None for a directory or a name not shaped like a
    wheel's (a shaped but invalid one was refused by ``plan.host_filename``)."""
    if not input_path.is_file():
        return None
    try:
        return parse_wheel_name(input_path.name)
    except InvalidWheel:
        return None


def check_wheel_file(input_path: Path, identity: HostIdentity, wheel: bytes) -> CheckedWheel:
    """Check the file name against METADATA (errors) and WHEEL (warnings), and compose the
    host's WHEEL. ``identity`` comes from :func:`~wheel_size.split.metadata.parse_identity`
    (its tags already checked as PEP 425 tags)."""
    where = str(input_path)
    headers = BytesHeaderParser().parsebytes(wheel)
    wheel_version = _one_header(headers.get_all("Wheel-Version") or [], "Wheel-Version", where)
    if wheel_version is None or not _WHEEL_VERSION.match(wheel_version):
        raise InvalidWheel(f"{where}: WHEEL Wheel-Version {wheel_version!r} is not MAJOR.MINOR")
    purelib = _one_header(headers.get_all("Root-Is-Purelib") or [], "Root-Is-Purelib", where)
    if purelib is not None and purelib.lower() not in ("true", "false"):
        raise InvalidWheel(f"{where}: WHEEL Root-Is-Purelib {purelib!r} is not true or false")
    build = _one_header(headers.get_all("Build") or [], "Build", where)
    if build is not None and not valid_build_tag(build):
        raise InvalidWheel(f"{where}: WHEEL Build {build!r} is not a wheel build tag")
    generator = _one_header(headers.get_all("Generator") or [], "Generator", where)
    if generator is not None and not _GENERATOR.match(generator):
        generator = None  # not ours to repeat: a control character or an overlong value
    identity = replace(identity, purelib=(purelib or "false").lower() == "true")
    warnings: list[str] = []
    name = _parsed_name(input_path)
    if name is not None:
        if name.distribution != canonicalize_name(identity.name):
            raise InvalidWheel(
                f"{where}: the file name's distribution {name.distribution!r} disagrees with "
                f"METADATA Name {identity.name!r}"
            )
        if name.version != Version(identity.version):  # PEP 440 equality: 1.0 == 1.0.0
            raise InvalidWheel(
                f"{where}: the file name's version {name.version} disagrees with METADATA "
                f"Version {identity.version}"
            )
        named = file_name_tags(name)
        if set(named) != set(identity.tags):
            warnings.append(
                f"{where}: WHEEL Tag {', '.join(identity.tags)} disagrees with the file name's "
                f"{', '.join(named)}; the outputs carry the file name's tags"
            )
        identity = replace(identity, tags=named)
        stem = name.filename[: -len(".whl")].split("-")
        stem = stem[:-1] if name.variant_label is not None else stem
        file_build = stem[2] if len(stem) == 6 else None
        if file_build != build:
            warnings.append(
                f"{where}: WHEEL Build {build or '(none)'} disagrees with the file name's "
                f"{file_build or '(none)'}; the host wheel carries the file name's"
            )
        build = file_build
    lines = [
        f"Wheel-Version: {wheel_version}",
        f"Generator: {generator or 'unknown'} (split by wheel-size {__version__})",
        f"Root-Is-Purelib: {(purelib or 'false').lower()}",
        *(f"Tag: {tag}" for tag in identity.tags),
        *([f"Build: {build}"] if build else []),
    ]
    return CheckedWheel(identity, ("\n".join(lines) + "\n").encode(), tuple(warnings))
