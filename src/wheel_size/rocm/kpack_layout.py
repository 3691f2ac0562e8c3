"""Which ``.kpack`` archives a split writes, and which code object each (key, arch) names,
so that rocm-kpack's runtime loader finds a compatible kernel for every library on every
agent the fat binary served (issue #13; spec sections 1.5 and 1.9).

The loader (``runtime/src/loader.cpp``) expands ``<group>_@GFXARCH@.kpack`` to every
candidate of every requested ISA (the agent's full ISA, then CLR's generic ISA), opens the
files that exist, and per ISA walks the candidates most specific first, taking the first
archive whose ``gfx_arches`` lists the candidate; it then returns ``toc[key][candidate]``
or KERNEL_NOT_FOUND, never trying a less specific candidate.  The file name only has to be
*one* of the candidates; the match is made on ``gfx_arches``.

So the layout is one archive per processor, named by the bare processor (a candidate of
every agent of that processor), whose ``gfx_arches`` lists every string such an agent can
report (full, partial, bare: 3**n for n features), and whose TOC maps each (key, string)
to the code object the loader's own walk would prefer for that string among the key's
compatible code objects: the most specific one, or, when the key has none for this
processor, its compatible generic-ISA code object.  A code object is stored once per
archive; all its arch strings share one ordinal.  Generic ISAs get an archive of their own
for agents whose processor has no archive.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from wheel_size.rocm.target_id import (
    GENERIC_COVERS,
    TargetId,
    agent_features,
    generic_of,
    loader_candidates,
    parse_target_id,
    qualified_strings,
)

__all__ = ["LAYOUTS", "ArchivePlan", "plan_archives"]

# "per-target-id" is AMD's split_python_wheels layout (spec section 1.3, step 4): one archive
# per full target-id, listing only that string. Loaders before rocm-kpack of 2026-02-19 find
# kernels only that way; the agents whose reported ISA names no stored target-id exactly
# (a feature-qualified agent for a bare or generic code object) get nothing from it.
LAYOUTS = ("per-processor", "per-target-id")


@dataclass(frozen=True)
class ArchivePlan:
    """One archive: ``name`` in ``<group>_<name>.kpack``, its ``gfx_arches``, and per stored
    code object (key, the code object's own target-id, the arch strings it is listed under)."""

    name: str
    arches: tuple[str, ...]
    entries: tuple[tuple[str, str, tuple[str, ...]], ...]


def _feature_order(names: set[str]) -> tuple[str, ...]:
    """HSA's order: sramecc before xnack; anything else after, alphabetically."""
    return tuple(sorted(names, key=lambda n: (n not in ("sramecc", "xnack"), n)))


@functools.cache
def _walk(agent: str) -> tuple[frozenset[tuple[str, bool]], ...]:
    """The feature sets the loader's walk tries for ``agent``, in its order: the same for
    every key of an archive (a few arch strings, thousands of keys), so worked out once."""
    return tuple(frozenset(parse_target_id(c).features) for c in loader_candidates(agent))


def _pick(agent: str, processor: str, objects: Sequence[TargetId]) -> TargetId | None:
    """The code object the loader's walk reaches first for ``agent`` among ``objects`` of
    ``processor`` (matching by feature set, so spelling order does not matter)."""
    for features in _walk(agent):
        for code in objects:
            if code.processor == processor and frozenset(code.features) == features:
                return code
    return None


def _per_target_id(code_objects: Mapping[str, Sequence[str]]) -> list[ArchivePlan]:
    """AMD's layout: ``<group>_<target-id>.kpack`` per target-id (``torch_gfx90a:xnack+``),
    each code object filed under its own target-id only."""
    keys: dict[str, list[str]] = {}
    for key in sorted(code_objects):
        for target in code_objects[key]:
            keys.setdefault(target, []).append(key)
    return [
        ArchivePlan(target, (target,), tuple((key, target, (target,)) for key in keys[target]))
        for target in sorted(keys)
    ]


def plan_archives(
    code_objects: Mapping[str, Sequence[str]], *, layout: str = "per-processor"
) -> list[ArchivePlan]:
    """The archives for ``{toc key: [target-id of each of its code objects]}``."""
    if layout == "per-target-id":
        return _per_target_id(code_objects)
    if layout != "per-processor":
        raise ValueError(f"kpack layout {layout!r} is not one of {', '.join(LAYOUTS)}")
    parsed = {key: [parse_target_id(t) for t in targets] for key, targets in code_objects.items()}
    processors = sorted({c.processor for codes in parsed.values() for c in codes})
    plans = []
    for proc in processors:
        generic = None if proc in GENERIC_COVERS else generic_of(proc)
        names = set(agent_features(proc))
        for codes in parsed.values():
            names.update(n for c in codes if c.processor in (proc, generic) for n, _ in c.features)
        arches = tuple(qualified_strings(proc, _feature_order(names)))
        listed: dict[tuple[str, str], list[str]] = {}
        for key in sorted(parsed):
            codes = parsed[key]
            for arch in arches:
                code = _pick(arch, proc, codes)
                if code is None and generic is not None:
                    as_generic = arch.replace(proc, generic, 1)
                    code = _pick(as_generic, generic, codes)
                if code is not None:
                    listed.setdefault((key, code.text), []).append(arch)
        entries = tuple((key, target, tuple(a)) for (key, target), a in listed.items())
        plans.append(ArchivePlan(proc, arches, entries))
    return plans
