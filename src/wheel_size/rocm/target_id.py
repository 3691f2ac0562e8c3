"""Offload bundle entry IDs and AMDGPU target IDs.

An entry ID is ``<kind>-<triple>-<target-id>``; for AMDHSA the triple is normalised to
``amdgcn-amd-amdhsa-`` so the device ID reads ``hipv4-amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-``
(spec section 2.1).  The target ID is a processor plus any number of ``:feature±``.

Compatibility follows LLVM (``clang/lib/Basic/TargetID.cpp`` ``isCompatibleTargetID``): a code
object runs on an agent when the processors are equal and every feature the code object
names is named by the agent with the same sign (an unnamed feature means "any").  The
agent-side tables (which features a processor reports, which processors a generic ISA
covers) are LLVM's AMDGPUUsage tables; :func:`loader_candidates` is rocm-kpack's runtime
enumeration (``isa_target_match.h``), used to lay out kpack archives so that loader finds a
kernel for every agent (see ``wheel_size.rocm.kpack_layout``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from wheel_size.errors import InvalidBundle

__all__ = [
    "GENERIC_COVERS",
    "EntryId",
    "TargetId",
    "agent_features",
    "agent_isas",
    "compatible",
    "generic_of",
    "loader_candidates",
    "parse_entry_id",
    "parse_target_id",
    "qualified_strings",
]

# Features an agent of each processor reports (HSA ISA names carry them, in this order).
_SRAMECC_XNACK = ("sramecc", "xnack")
_FEATURES: dict[str, tuple[str, ...]] = {
    **dict.fromkeys(("gfx906", "gfx908", "gfx90a", "gfx940", "gfx941", "gfx942"), _SRAMECC_XNACK),
    **dict.fromkeys(("gfx950", "gfx9-4-generic"), _SRAMECC_XNACK),
    **dict.fromkeys(("gfx900", "gfx902", "gfx904", "gfx909", "gfx90c"), ("xnack",)),
    **dict.fromkeys(("gfx1010", "gfx1011", "gfx1012", "gfx1013"), ("xnack",)),
    **dict.fromkeys(("gfx9-generic", "gfx10-1-generic"), ("xnack",)),
}
# Generic ISA -> the processors whose agents run its code objects (LLVM AMDGPUUsage).
GENERIC_COVERS: dict[str, tuple[str, ...]] = {
    "gfx9-generic": ("gfx900", "gfx902", "gfx904", "gfx906", "gfx909", "gfx90c"),
    "gfx9-4-generic": ("gfx940", "gfx941", "gfx942", "gfx950"),
    "gfx10-1-generic": ("gfx1010", "gfx1011", "gfx1012", "gfx1013"),
    "gfx10-3-generic": tuple(f"gfx103{i}" for i in range(7)),
    "gfx11-generic": (*(f"gfx110{i}" for i in range(4)), *(f"gfx115{i}" for i in range(4))),
    "gfx12-generic": ("gfx1200", "gfx1201"),
    "gfx12-5-generic": ("gfx1250", "gfx1251"),
}
_GENERIC_OF = {proc: gen for gen, procs in GENERIC_COVERS.items() for proc in procs}

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


def agent_features(processor: str) -> tuple[str, ...]:
    """The features an agent of ``processor`` reports (``("sramecc", "xnack")`` for gfx942)."""
    return _FEATURES.get(processor, ())


def generic_of(processor: str) -> str | None:
    """The generic ISA whose code objects run on ``processor`` (gfx942 -> gfx9-4-generic)."""
    return _GENERIC_OF.get(processor)


def qualified_strings(processor: str, features: tuple[str, ...]) -> list[str]:
    """Every target-id string over ``features``, each unnamed, ``+`` or ``-``: full
    combinations, partial ones and the bare processor (3**n strings, fullest first)."""
    out = [processor]
    for name in features:
        out = [f"{head}:{name}{sign}" for head in out for sign in "+-"] + out
    return sorted(out, key=lambda text: -text.count(":"))


def agent_isas(processor: str) -> list[str]:
    """The ISA names an agent of ``processor`` can report: every feature signed."""
    return [t for t in qualified_strings(processor, agent_features(processor))
            if t.count(":") == len(agent_features(processor))]  # fmt: skip


def compatible(code: TargetId, agent: TargetId) -> bool:
    """LLVM's rule: same processor, and each feature of the code object named by the agent
    with the same sign."""
    if code.processor != agent.processor:
        return False
    named = dict(agent.features)
    return all(named.get(name) is on for name, on in code.features)


def loader_candidates(agent: str) -> list[str]:
    """rocm-kpack's ``for_each_compatible_target``: strip ``amdgcn-amd-amdhsa--``, then the
    processor with every subset of the agent's features, as a bit mask counted down from
    all set, where feature *i* is bit ``n-1-i`` (so features drop from the right first)."""
    text = agent.removeprefix("amdgcn-amd-amdhsa--")
    processor, *features = text.split(":")
    features = [f for f in features if f]
    if not processor:
        return []
    n = len(features)
    out = []
    for mask in range((1 << n) - 1, -1, -1):
        kept = [f for i, f in enumerate(features) if mask & (1 << (n - 1 - i))]
        out.append(":".join([processor, *kept]))
    return out
