"""GPU architecture names: target-ids, bundle keys, the packaging hierarchy, device dist names.

A code object's target-id (``gfx942:sramecc+:xnack-``) names the exact kpack archive; its
*bundle key* (``gfx942``) names the device wheel. Keys form rocm-bootstrap's three levels,
family (``gfx11``) / sub-family (``gfx110x``, ``gfx12_0``) / target (``gfx1100``); the table is
pinned in ``data/rocm_hierarchy.json`` rather than imported, so names cannot drift with
rocm-bootstrap releases. Keys the table does not know are kept as their own name (with a
warning from the caller), never an error -- as long as they are plain names: a key, a
target-id or a device package prefix reaches file names, ``Requires-Dist`` lines and extras,
so each is checked against a strict character set here first (:func:`check_bundle_key`,
:func:`check_target_id`, :func:`check_device_prefix`).
"""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from wheel_size.errors import InputError, InvalidBundle
from wheel_size.wheel.filename import escape_name, valid_name

__all__ = [
    "Hierarchy",
    "Level",
    "check_bundle_key",
    "check_device_prefix",
    "check_target_id",
    "device_dist_name",
    "dist_part",
    "hierarchy",
    "normalize_arch",
    "valid_bundle_key",
    "wheel_escape",
]

Level = Literal["family", "sub-family", "target", "unknown"]

_TRIPLE_PREFIX = re.compile(r"^.*?amdgcn-amd-amdhsa-{1,2}")
_DASH_FEATURE = re.compile(r"-(xnack|sramecc)([+-])")
_DATA = Path(__file__).with_name("data") / "rocm_hierarchy.json"
# A bundle key becomes part of a distribution name and an extra: lowercase words of letters
# and digits joined by one ``_`` or ``-`` (gfx942, gfx12_0, gfx110x, gfx9-4-generic).
_KEY = re.compile(r"^[a-z0-9]+(?:[_-][a-z0-9]+)*\Z")
# A target-id as it names a kpack archive: a key-like processor, then ``:feature±``.
_TARGET_ID = re.compile(r"^[a-z0-9]+(?:[_-][a-z0-9]+)*(?::[a-z0-9]+(?:[_-][a-z0-9]+)*[+-])*\Z")
_MAX_KEY = 64


def valid_bundle_key(key: str) -> bool:
    """True for a key that can name a device wheel and an extra as it is."""
    return len(key) <= _MAX_KEY and bool(_KEY.match(key))


def check_bundle_key(key: str, source: str) -> str:
    """``key`` if :func:`valid_bundle_key`, else InvalidBundle naming ``source``."""
    if not valid_bundle_key(key):
        raise InvalidBundle(
            f"{source}: GPU architecture {key!r} cannot name a device wheel "
            "(want lowercase letters and digits joined by '_' or '-')"
        )
    return key


def check_target_id(arch: str, source: str) -> str:
    """``arch`` (a normalised target-id) if it can name a kpack file, else InvalidBundle."""
    if len(arch) > 2 * _MAX_KEY or not _TARGET_ID.match(arch):
        raise InvalidBundle(
            f"{source}: target-id {arch!r} cannot name a kpack archive "
            "(want a processor name and ':feature+' / ':feature-' parts)"
        )
    return arch


def check_device_prefix(prefix: str) -> str:
    """``--device-package-prefix`` if it is a PEP 508 name (a trailing ``-`` is dropped)."""
    stem = prefix.rstrip("-")
    if not valid_name(stem) or len(stem) > 100:
        raise InputError(
            f"--device-package-prefix {prefix!r}: not a distribution name (letters, digits, "
            "'-', '_', '.', starting and ending with a letter or digit)"
        )
    return prefix


def normalize_arch(arch: str) -> str:
    """Canonical target-id spelling: no triple prefix, ``:xnack+`` not ``-xnack+``."""
    arch = _TRIPLE_PREFIX.sub("", arch.strip())
    return _DASH_FEATURE.sub(r":\1\2", arch)


def processor(arch: str) -> str:
    """The processor part of a target-id: every ``:feature±`` dropped."""
    return normalize_arch(arch).split(":", 1)[0]


def dist_part(key: str) -> str:
    """Bundle key to distribution-name part, as rocm-bootstrap does (``gfx12_0`` -> ``gfx12-0``)."""
    return key.replace("_", "-")


def device_dist_name(prefix: str, key: str) -> str:
    """``amd-torch-device`` + ``gfx12_0`` -> ``amd-torch-device-gfx12-0``; both parts checked."""
    check_device_prefix(prefix)
    check_bundle_key(key, f"--device-package-prefix {prefix}")
    return f"{prefix.rstrip('-')}-{dist_part(key)}"


def wheel_escape(name: str) -> str:
    """A distribution name as it appears in wheel and dist-info names (PEP 427/503)."""
    return escape_name(name)


@dataclass(frozen=True)
class Hierarchy:
    """The pinned family / sub-family / target table."""

    families: frozenset[str]
    sub_family_of: dict[str, str]  # target -> sub-family
    family_of: dict[str, str]  # sub-family -> family
    owners: dict[str, str]
    generic: dict[str, str]
    aotriton: dict[str, str]

    def bundle_key(self, arch: str) -> str:
        """The device wheel a code object or database file of ``arch`` belongs to."""
        proc = processor(arch)
        proc = self.owners.get(proc, proc)
        return self.generic.get(proc, proc)

    def level(self, key: str) -> Level:
        if key in self.sub_family_of:
            return "target"
        if key in self.family_of:
            return "sub-family"
        if key in self.families:
            return "family"
        return "unknown"

    def is_known(self, key: str) -> bool:
        return self.level(key) != "unknown"

    def chain(self, key: str) -> tuple[str, ...]:
        """``key`` and every level above it: gfx1100 -> (gfx1100, gfx110x, gfx11)."""
        level = self.level(key)
        if level == "target":
            sub = self.sub_family_of[key]
            return (key, sub, self.family_of[sub])
        if level == "sub-family":
            return (key, self.family_of[key])
        return (key,)

    def aotriton_key(self, directory: str) -> str:
        """``amd-gfx11xx`` -> ``gfx11``; ``amd-gfx942`` -> ``gfx942`` (chip names pass through)."""
        name = directory.removeprefix("amd-")
        return self.aotriton.get(name, self.bundle_key(name))

    def sort_key(self, key: str) -> tuple[int, int, str]:
        """Order keys by generation, then families before sub-families before targets."""
        top = self.chain(key)[-1]
        match = re.match(r"gfx(\d+)", top)
        digits = match.group(1) if match else "0"
        if self.level(top) != "family":  # unknown: gfx803 -> 8, gfx1036 -> 10
            digits = digits[:2] if len(digits) >= 4 else digits[:1]
        rank = {"family": 0, "sub-family": 1, "target": 2, "unknown": 3}[self.level(key)]
        return (int(digits), rank, key)


@functools.cache
def hierarchy() -> Hierarchy:
    """Load the pinned table (once)."""
    data = json.loads(_DATA.read_text())
    sub_family_of: dict[str, str] = {}
    family_of: dict[str, str] = {}
    for sub, info in data["sub_families"].items():
        family_of[sub] = info["family"]
        for target in info["targets"]:
            sub_family_of[target] = sub
    return Hierarchy(
        families=frozenset(data["families"]),
        sub_family_of=sub_family_of,
        family_of=family_of,
        owners=dict(data["owners"]),
        generic=dict(data["generic"]),
        aotriton=dict(data["aotriton"]),
    )
