"""Wheel file names (PEP 427 / PEP 425), including the PEP 825 variant label.

``{distribution}-{version}(-{build})?-{python}-{abi}-{platform}(-{variant})?.whl``: a
variant wheel has a sixth or seventh part, the label, which plain tools reject; we accept it.
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
from packaging.version import Version

from wheel_size.errors import InvalidWheel

__all__ = ["WheelName", "parse_wheel_name"]

# PEP 825: a variant label is 1-16 characters of [0-9a-z._].
_VARIANT_LABEL = re.compile(r"^[0-9a-z._]{1,16}$")


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
    if any(ord(ch) < 32 or ord(ch) == 127 for ch in filename):
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
    return WheelName(
        filename=filename,
        distribution=str(canonicalize_name(name)),
        version=version,
        build=build,
        tags=tags,
        variant_label=variant,
    )
