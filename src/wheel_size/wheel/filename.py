"""Wheel file names (PEP 427 / PEP 425), including the PEP 825 variant label.

``{distribution}-{version}(-{build})?-{python}-{abi}-{platform}(-{variant})?.whl``: a
variant wheel has a sixth or seventh part, the label, which plain tools reject; we accept it.

Names are parsed strictly (``packaging`` alone lets a tag hold spaces or empty parts) and
composed only from validated parts by :func:`wheel_filename`: a PEP 508 name written in its
escaped form, a PEP 440 version written normalised, PEP 425 tags of ``[A-Za-z0-9_]`` words.
A name built from a hostile METADATA ``Version`` can therefore never hold a ``/``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from packaging.tags import Tag
from packaging.utils import (
    InvalidWheelFilename,
    canonicalize_name,
    parse_wheel_filename,
)
from packaging.version import InvalidVersion, Version

from wheel_size.errors import InputError, InvalidWheel
from wheel_size.fileio import CONTROL_CHARACTER

__all__ = [
    "WheelName",
    "escape_name",
    "normalized_version",
    "parse_wheel_name",
    "valid_build_tag",
    "valid_name",
    "valid_tag",
    "wheel_filename",
]

# PEP 825: a variant label is 1-16 characters of [0-9a-z._].
_VARIANT_LABEL = re.compile(r"^[0-9a-z._]{1,16}\Z")
# PEP 508 distribution name (ASCII only, no leading or trailing punctuation).
_NAME = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?\Z")
# The name part of a file name: escaped, so ``-`` is already ``_``.
_FILE_NAME_PART = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9._]*[A-Za-z0-9])?\Z")
# One PEP 425 tag (``cp311``, ``manylinux_2_28_x86_64``) or a dotted set of them.
_TAG_PART = re.compile(r"^[A-Za-z0-9_]+(?:\.[A-Za-z0-9_]+)*\Z")
# A build tag starts with a digit; the rest is escaped like every other part.
_BUILD = re.compile(r"^[0-9][A-Za-z0-9_.]*\Z")
_MAX_NAME = 255  # a file name longer than this cannot be created anyway


def valid_name(name: str) -> bool:
    """A PEP 508 distribution name (what METADATA ``Name`` and our flags may hold)."""
    return bool(_NAME.match(name)) and len(name) <= 200


def escape_name(name: str) -> str:
    """The name as it appears in wheel file and dist-info names: runs of ``-_.`` as ``_``."""
    return re.sub(r"[-_.]+", "_", name).lower()


def normalized_version(text: str) -> str | None:
    """The PEP 440 normal form of ``text`` (``1.0.0-RC1`` -> ``1.0.0rc1``), None if invalid."""
    if len(text) > 200 or CONTROL_CHARACTER.search(text):
        return None
    try:
        normal = str(Version(text))
    except InvalidVersion:
        return None
    # packaging matches letters case-insensitively, so "İ" or "K" (Kelvin) pass as a-z
    return normal if normal.isascii() else None


def valid_tag(tag: str) -> bool:
    """A ``python-abi-platform`` triple (parts may be dotted sets) of ``[A-Za-z0-9_]`` words."""
    parts = tag.split("-")
    return len(parts) == 3 and all(_TAG_PART.match(part) for part in parts)


def valid_build_tag(build: str) -> bool:
    """A wheel build tag: a digit first, then letters, digits, ``_`` and ``.``."""
    return bool(_BUILD.match(build)) and len(build) <= 64


def wheel_filename(
    name: str, version: str, tags: str, *, build: str | None = None, variant: str | None = None
) -> str:
    """Compose a wheel file name from parts checked here, whatever their origin.

    ``tags`` is the compressed ``python-abi-platform`` triple; ``version`` is written in its
    PEP 440 normal form. Raises InputError for any part that is not what its PEP allows.
    """
    normal = normalized_version(version)
    problem = None
    if not valid_name(name):
        problem = f"distribution name {name!r} is not a PEP 508 name"
    elif normal is None:
        problem = f"version {version!r} is not a PEP 440 version"
    elif not valid_tag(tags):
        problem = f"tags {tags!r} are not PEP 425 python-abi-platform tags"
    elif build is not None and not valid_build_tag(build):
        problem = f"build tag {build!r} must be a digit then [A-Za-z0-9_.]"
    elif variant is not None and not _VARIANT_LABEL.match(variant):
        problem = f"variant label {variant!r} is not 1-16 characters of [0-9a-z._]"
    if problem is not None:
        raise InputError(f"cannot name a wheel: {problem}")
    parts = [escape_name(name), str(normal)]
    parts += [build] if build is not None else []
    parts.append(tags)
    parts += [variant] if variant is not None else []
    filename = "-".join(parts) + ".whl"
    if len(filename.encode()) > _MAX_NAME:
        raise InputError(f"cannot name a wheel: {filename[:60]}...: longer than {_MAX_NAME} bytes")
    parse_wheel_name(filename)  # the composed name must read back as a wheel name
    return filename


@dataclass(frozen=True)
class WheelName:
    """The parts of a wheel file name."""

    filename: str
    distribution: str
    version: Version
    build: tuple[int, str] | tuple[()]
    tags: frozenset[Tag]
    variant_label: str | None

    @property
    def local_label(self) -> str | None:
        """The PEP 440 local version label, e.g. ``cu128`` of ``2.9.0+cu128``."""
        return self.version.local

    @property
    def python_tags(self) -> list[str]:
        return sorted({tag.interpreter for tag in self.tags})

    @property
    def abi_tags(self) -> list[str]:
        return sorted({tag.abi for tag in self.tags})

    @property
    def platform_tags(self) -> list[str]:
        return sorted({tag.platform for tag in self.tags})


def parse_wheel_name(filename: str) -> WheelName:
    """Parse a wheel file name (a base name, not a path)."""
    if CONTROL_CHARACTER.search(filename):
        # keep the error on one line: a name with a line break is hostile, not a typo
        raise InvalidWheel(f"{filename!r}: control characters in a wheel file name")
    if not filename.endswith(".whl"):
        raise InvalidWheel(f"{filename}: not a wheel file name (no .whl suffix)")
    stem = filename[: -len(".whl")]
    parts = stem.split("-")
    variant: str | None = None
    plain = filename
    # Seven parts always end in a variant label. Six parts are either a build tag or a
    # label: a build tag starts with a digit, a Python tag (third part otherwise) never does.
    has_label = len(parts) == 7 or (len(parts) == 6 and not parts[2][:1].isdigit())
    if has_label and _VARIANT_LABEL.match(parts[-1]):
        candidate = "-".join(parts[:-1]) + ".whl"
        try:
            parse_wheel_filename(candidate)
        except InvalidWheelFilename:
            pass
        else:
            variant, plain = parts[-1], candidate
    try:
        name, version, build, tags = parse_wheel_filename(plain)
    except InvalidWheelFilename as exc:
        raise InvalidWheel(f"{filename}: invalid wheel file name: {exc}") from None
    _check_parts(filename, plain)
    return WheelName(
        filename=filename,
        distribution=str(canonicalize_name(name)),
        version=version,
        build=build,
        tags=tags,
        variant_label=variant,
    )


def _check_parts(filename: str, plain: str) -> None:
    """What ``packaging`` lets through: non-ASCII names, tags with spaces or empty parts,
    build tags of any character. Refused here, so a parsed name is also safe to write."""
    parts = plain[: -len(".whl")].split("-")
    name, tags = parts[0], parts[-3:]
    build = parts[2] if len(parts) == 6 else None
    if not _FILE_NAME_PART.match(name):
        raise InvalidWheel(f"{filename}: invalid wheel file name: bad distribution part {name!r}")
    if build is not None and not valid_build_tag(build):
        raise InvalidWheel(f"{filename}: invalid wheel file name: bad build tag {build!r}")
    for tag in tags:
        if not _TAG_PART.match(tag):
            raise InvalidWheel(f"{filename}: invalid wheel file name: bad tag {tag!r}")
