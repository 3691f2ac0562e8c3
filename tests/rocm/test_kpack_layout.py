"""The archive layout against rocm-kpack's loader rules (tests/rocm/kpack_loader.py): for
every agent ISA of every processor, every library key with a compatible code object gets
one (and a compatible one), none gets an incompatible one, and no archive stores a code
object twice.  The old one-archive-per-exact-target layout fails the same check."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from kpack_loader import arch_list, candidates, load_code_object, served

from wheel_size.rocm.kpack import KpackWriter, read_kpack
from wheel_size.rocm.kpack_layout import plan_archives
from wheel_size.rocm.target_id import (
    agent_isas,
    generic_of,
    loader_candidates,
    qualified_strings,
)

PROCESSORS = ["gfx906", "gfx908", "gfx90a", "gfx942", "gfx950", "gfx1030", "gfx1100", "gfx1201"]
AGENTS = [isa for proc in PROCESSORS for isa in agent_isas(proc)]
META = {"kpack_search_paths": ["../.kpack/torch_@GFXARCH@.kpack"]}

# The mix: bare, partial and full target IDs across libraries, and generic ISAs.
MIX: dict[str, list[str]] = {
    "lib/a.so#0": ["gfx942", "gfx90a", "gfx906", "gfx1100", "gfx950"],
    "lib/b.so#0": ["gfx942:sramecc+:xnack-", "gfx90a:xnack+", "gfx90a:xnack-", "gfx906:sramecc+"],
    "lib/c.so#0": ["gfx942:xnack+", "gfx942:sramecc-:xnack-", "gfx90a:sramecc+:xnack-", "gfx1201"],
    "lib/d.so#0": ["gfx9-4-generic", "gfx11-generic", "gfx9-generic:xnack+"],
    "lib/e.so#0": ["gfx942:sramecc+", "gfx942:xnack-", "gfx950:xnack-"],
    "lib/e.so#1": ["gfx9-4-generic:sramecc+", "gfx942:xnack+"],
}


def payload(key: str, target: str) -> bytes:
    return f"{key}|{target}".encode()


def write_new(root: Path, objects: Mapping[str, Sequence[str]]) -> None:
    (root / ".kpack").mkdir(parents=True)
    for plan in plan_archives(objects):
        path = root / ".kpack" / f"torch_{plan.name}.kpack"
        with KpackWriter(path, arch=plan.name, arches=plan.arches, group="torch") as w:
            for key, target, arches in plan.entries:
                w.add(key=key, data=payload(key, target), arches=arches)


def write_old(root: Path, objects: Mapping[str, Sequence[str]]) -> None:
    """What the split wrote before: one archive per exact target-id."""
    (root / ".kpack").mkdir(parents=True)
    by_target: dict[str, list[str]] = {}
    for key, targets in objects.items():
        for target in targets:
            by_target.setdefault(target, []).append(key)
    for target, keys in by_target.items():
        with KpackWriter(root / ".kpack" / f"torch_{target}.kpack", arch=target) as w:
            for key in keys:
                w.add(key=key, data=payload(key, target))


def failures(root: Path, objects: Mapping[str, Sequence[str]]) -> list[str]:
    out = []
    for agent in AGENTS:
        for key, targets in objects.items():
            name, index = key.rsplit("#", 1)
            result = load_code_object(
                {**META, "kernel_name": name}, root / "lib" / "x.so", int(index), arch_list(agent)
            )
            ok = [t for t in targets if served(t, agent)]
            got = result.data.decode().split("|", 1)[1] if result.data else None
            if ok and got not in ok:
                out.append(f"{agent} {key}: {result.status} {got} (compatible: {ok})")
            if not ok and got is not None:
                out.append(f"{agent} {key}: got {got}, nothing compatible existed")
    return out


def test_candidates_match_the_runtime_enumeration() -> None:
    assert candidates("amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-") == [
        "gfx942:sramecc+:xnack-",
        "gfx942:sramecc+",
        "gfx942:xnack-",
        "gfx942",
    ]
    assert candidates("gfx1100") == ["gfx1100"]
    for isa in AGENTS:
        assert candidates(isa) == loader_candidates(isa)
    assert agent_isas("gfx942") == [
        "gfx942:sramecc+:xnack+",
        "gfx942:sramecc+:xnack-",
        "gfx942:sramecc-:xnack+",
        "gfx942:sramecc-:xnack-",
    ]
    assert agent_isas("gfx1100") == ["gfx1100"] and agent_isas("gfx950")[1].endswith("xnack-")
    assert len(qualified_strings("gfx90a", ("sramecc", "xnack"))) == 9


def test_every_agent_finds_every_library(tmp_path: Path) -> None:
    write_new(tmp_path, MIX)
    assert failures(tmp_path, MIX) == []


def test_old_layout_fails_the_same_check(tmp_path: Path) -> None:
    """One archive per exact target: an MI300X-style agent matches
    torch_gfx942:sramecc+:xnack-.kpack first and gets KERNEL_NOT_FOUND for the library that
    shipped bare gfx942 (the issue's 1 of 12)."""
    write_old(tmp_path, MIX)
    broken = failures(tmp_path, MIX)
    assert "gfx942:sramecc+:xnack- lib/a.so#0: KERNEL_NOT_FOUND None (compatible: ['gfx942'])" in (
        broken
    )
    assert len(broken) > 20


def test_archives_store_each_code_object_once(tmp_path: Path) -> None:
    write_new(tmp_path, MIX)
    names = sorted(p.name for p in (tmp_path / ".kpack").iterdir())
    assert names == sorted(
        [
            "torch_gfx1100.kpack",
            "torch_gfx11-generic.kpack",
            "torch_gfx1201.kpack",
            "torch_gfx906.kpack",
            "torch_gfx9-4-generic.kpack",
            "torch_gfx9-generic.kpack",
            "torch_gfx90a.kpack",
            "torch_gfx942.kpack",
            "torch_gfx950.kpack",
        ]
    )
    with read_kpack(tmp_path / ".kpack" / "torch_gfx942.kpack") as archive:
        assert len(archive.gfx_arches) == 9
        ordinals = {e.ordinal for e in archive.entries.values()}
        stored = {archive.get(k, a) for k, a in archive.entries}
        assert len(ordinals) == len(stored)  # one ordinal per distinct code object
        # lib/d.so has only gfx9-4-generic: aliased into the gfx942 archive for every string
        assert {a for k, a in archive.entries if k == "lib/d.so#0"} == set(archive.gfx_arches)


def test_generic_archive_serves_processors_without_an_archive(tmp_path: Path) -> None:
    """gfx1101 has no archive of its own: the loader falls through to the generic ISA."""
    objects = {"lib/a.so#0": ["gfx1100", "gfx11-generic"]}
    write_new(tmp_path, objects)
    result = load_code_object(
        {**META, "kernel_name": "lib/a.so"}, tmp_path / "lib" / "x.so", 0, arch_list("gfx1101")
    )
    assert result.status == "SUCCESS" and result.matched_arch == "gfx11-generic"
    assert generic_of("gfx1101") == "gfx11-generic"


TARGET_POOL = sorted(
    {
        *(
            t
            for p in ("gfx90a", "gfx942", "gfx950")
            for t in qualified_strings(p, ("sramecc", "xnack"))
        ),
        "gfx906",
        "gfx906:sramecc+",
        "gfx906:xnack-",
        "gfx1100",
        "gfx1201",
        "gfx9-4-generic",
        "gfx9-4-generic:xnack-",
        "gfx11-generic",
    }
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.dictionaries(
        st.sampled_from([f"lib/{c}.so#{i}" for c in "abc" for i in range(2)]),
        st.lists(st.sampled_from(TARGET_POOL), min_size=1, max_size=6, unique=True),
        min_size=1,
        max_size=4,
    )
)
def test_any_mix_is_served(
    tmp_path_factory: pytest.TempPathFactory, objects: dict[str, list[str]]
) -> None:
    root = tmp_path_factory.mktemp("mix")
    write_new(root, objects)
    assert failures(root, objects) == []


def test_per_target_id_layout_is_amds(tmp_path: Path) -> None:
    """``--kpack-layout per-target-id`` writes the archives AMD's splitter writes (one per
    exact target-id, listing only it), and so has the old layout's documented trade-off."""
    root = tmp_path / "new"
    (root / ".kpack").mkdir(parents=True)
    for plan in plan_archives(MIX, layout="per-target-id"):
        assert plan.arches == (plan.name,)
        path = root / ".kpack" / f"torch_{plan.name}.kpack"
        with KpackWriter(path, arch=plan.name, arches=plan.arches, group="torch") as w:
            for key, target, arches in plan.entries:
                assert arches == (target,) == (plan.name,)
                w.add(key=key, data=payload(key, target))
    write_old(tmp_path / "old", MIX)
    for old in sorted((tmp_path / "old" / ".kpack").iterdir()):
        assert (root / ".kpack" / old.name).read_bytes() == old.read_bytes(), old.name
    assert len(list((root / ".kpack").iterdir())) == len(
        list((tmp_path / "old" / ".kpack").iterdir())
    )
    assert failures(root, MIX) == failures(tmp_path / "old", MIX) != []


def test_unknown_layout_is_refused() -> None:
    with pytest.raises(ValueError, match="per-target-id"):
        plan_archives(MIX, layout="per-gpu")
