"""Offload bundle entry IDs and AMDGPU target IDs.

An entry ID is ``<kind>-<triple>-<target-id>``; for AMDHSA the triple is normalised to
``amdgcn-amd-amdhsa-`` so the device ID reads ``hipv4-amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-``
(spec section 2.1).  The target ID is a processor plus any number of ``:feature±``; we keep
the exact string because the kpack file name, its ``gfx_arches`` and its TOC keys must all
be that same string for the runtime to find a kernel (spec section 1.5).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from wheel_size.errors import InvalidBundle

__all__ = ["EntryId", "TargetId", "parse_entry_id", "parse_target_id"]

# gfx906, gfx90a, gfx1100, and the LLVM generic ISAs gfx9-generic, gfx10-3-generic, gfx9-4-generic.
_PROCESSOR = re.compile(r"gfx[0-9a-f]+(?:-[0-9]+)*(?:-generic)?|[a-z][a-z0-9_]*")
_FEATURE = re.compile(r"([a-z][a-z0-9_-]*)([+-])")


@dataclass(frozen=True)
class TargetId:
    """``gfx942:sramecc+:xnack-`` as processor ``gfx942`` and features
    ``(("sramecc", True), ("xnack", False))``; ``text`` is the exact original string."""

    processor: str
    features: tuple[tuple[str, bool], ...]
    text: str

    def feature(self, name: str) -> bool | None:
        """True/False when the target ID says ``name+``/``name-``, None when it is silent."""
        for feat, on in self.features:
            if feat == name:
                return on
        return None

    def __str__(self) -> str:
        return self.text


@dataclass(frozen=True)
class EntryId:
    """One bundle entry ID split into offload kind, triple and target ID.

    ``target`` is None for host entries (they carry no device code and are dropped).
    """

    text: str
    kind: str
    triple: str
    target: TargetId | None

    @property
    def is_host(self) -> bool:
        return self.kind == "host"


def parse_target_id(text: str) -> TargetId:
    """Parse ``gfx90a:xnack+`` style target IDs; raise InvalidBundle on anything else."""
    processor, *features = text.split(":")
    if not _PROCESSOR.fullmatch(processor):
        raise InvalidBundle(f"target ID {text!r}: bad processor name {processor!r}")
    parsed: list[tuple[str, bool]] = []
    for feat in features:
        m = _FEATURE.fullmatch(feat)
        if not m:
            raise InvalidBundle(f"target ID {text!r}: bad feature {feat!r} (want name+ or name-)")
        name = m.group(1)
        if any(name == seen for seen, _ in parsed):
            raise InvalidBundle(f"target ID {text!r}: feature {name!r} given twice")
        parsed.append((name, m.group(2) == "+"))
    return TargetId(processor=processor, features=tuple(parsed), text=text)


def parse_entry_id(text: str) -> EntryId:
    """Split a bundle entry ID.

    Host entries (``host-x86_64-unknown-linux`` from clang-15, ``…-linux--`` from clang-19)
    are recognised by their kind alone.  For device entries the target ID is what follows
    the last ``--`` (AMDHSA's empty environment), or the last ``-`` part for pre-v4
    producers (``hip-amdgcn-amd-amdhsa-gfx906``).
    """
    if not text or not text.isascii() or not text.isprintable():
        raise InvalidBundle(f"bundle entry ID {text!r} is not printable ASCII")
    kind, sep, rest = text.partition("-")
    if not sep or not kind or not rest:
        raise InvalidBundle(f"bundle entry ID {text!r} has no <kind>-<triple> form")
    if kind == "host":
        return EntryId(text=text, kind=kind, triple=rest, target=None)
    if "--" in rest:
        triple, _, target = rest.rpartition("--")
    else:
        triple, _, target = rest.rpartition("-")
    if not triple or not target:
        raise InvalidBundle(f"bundle entry ID {text!r} names no target")
    return EntryId(text=text, kind=kind, triple=triple, target=parse_target_id(target))
