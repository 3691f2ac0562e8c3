"""Which GPU targets the host wheel offers an extra for, and which device wheels each pulls.

A target with a device wheel of its own gets its chain: that wheel and its emitted
sub-family and family wheels. A target with no wheel of its own can still be served: a
code object built for an LLVM generic ISA (``gfx11-generic``, ``gfx9-4-generic``) runs on
every processor that ISA covers, and its archive (``<group>_gfx11-generic.kpack``) is one
the loader tries for those agents after their own. jax-rocm7-plugin 0.10.0 ships only
generic code for every gfx94x, gfx103x, gfx11 and gfx12 GPU; offering extras only for the
targets with a wheel of their own (gfx908, gfx90a) left ``jax-rocm7-plugin[gfx1100]``
an unknown extra that pip ignores with a warning, installing no device code at all.

So every target of the pinned hierarchy that a generic ISA with code objects covers gets
an extra too, pulling its emitted chain and the wheel holding that generic archive (which
is not always in its chain: gfx9-4-generic covers gfx950, whose chain is gfx9_5, gfx9).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from wheel_size.rocm.target_id import GENERIC_COVERS
from wheel_size.split.names import Hierarchy, processor

__all__ = ["install_chains"]


def install_chains(
    levels: Mapping[str, str], archives: Iterable[str], table: Hierarchy
) -> dict[str, tuple[str, ...]]:
    """``{target: emitted bundle keys its extra installs}``, targets in hierarchy order.

    ``levels`` maps every emitted bundle key to its level; ``archives`` are the arches of
    the kpack archives written (``gfx11-generic``, ``gfx942``, ``gfx90a:xnack+``), from
    which the generic ISAs with code objects are read.
    """
    chains = {
        key: tuple(k for k in table.chain(key) if k in levels)
        for key, level in levels.items()
        if level in ("target", "unknown")
    }
    generics = sorted({processor(a) for a in archives} & GENERIC_COVERS.keys())
    for isa in generics:
        home = table.bundle_key(isa)
        if home not in levels:
            continue
        for target in GENERIC_COVERS[isa]:
            if target in chains or table.level(target) != "target":
                continue  # served by its own wheel, or a processor rocm-bootstrap never names
            chain = [k for k in table.chain(target) if k in levels]
            chains[target] = tuple(chain if home in chain else [*chain, home])
    return dict(sorted(chains.items(), key=lambda item: table.sort_key(item[0])))
