"""The pinned packaging hierarchy and bundle keys (rocm-bootstrap 0.3.0 naming)."""

from __future__ import annotations

import pytest

from wheel_size.split.names import (
    device_dist_name,
    hierarchy,
    normalize_arch,
    wheel_escape,
)

PREFIX = "amd-torch-device"


@pytest.mark.parametrize(
    ("target", "dists"),
    [
        ("gfx942", ["gfx942", "gfx9-4", "gfx9"]),
        ("gfx90a", ["gfx90a", "gfx9-0", "gfx9"]),
        ("gfx950", ["gfx950", "gfx9-5", "gfx9"]),
        ("gfx1030", ["gfx1030", "gfx10-3", "gfx10"]),
        ("gfx1100", ["gfx1100", "gfx110x", "gfx11"]),
        ("gfx1151", ["gfx1151", "gfx115x", "gfx11"]),
        ("gfx1201", ["gfx1201", "gfx12-0", "gfx12"]),
        ("gfx1250", ["gfx1250", "gfx12-5", "gfx12"]),
    ],
)
def test_packaging_chain_matches_rocm_bootstrap(target: str, dists: list[str]) -> None:
    table = hierarchy()
    chain = table.chain(target)
    assert [device_dist_name(PREFIX, key) for key in chain] == [f"{PREFIX}-{d}" for d in dists]
    assert [table.level(k) for k in chain] == ["target", "sub-family", "family"]


@pytest.mark.parametrize(
    ("arch", "key"),
    [
        ("gfx942:sramecc+:xnack-", "gfx942"),  # every feature, not only a trailing :xnack
        ("gfx942:xnack+", "gfx942"),
        ("gfx90a-xnack-", "gfx90a"),
        ("hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+", "gfx90a"),
        ("gfx1250-strict", "gfx1250"),
        ("gfx11-generic", "gfx11"),
        ("gfx12-generic", "gfx12_0"),
        ("gfx9-4-generic", "gfx9_4"),
        ("gfx803", "gfx803"),
    ],
)
def test_bundle_keys(arch: str, key: str) -> None:
    assert hierarchy().bundle_key(arch) == key


def test_unknown_architecture_is_its_own_bundle() -> None:
    table = hierarchy()
    assert table.level("gfx803") == "unknown"
    assert table.chain("gfx803") == ("gfx803",)
    assert not table.is_known("gfx940")  # not a rocm-bootstrap 0.3.0 target


def test_normalize_arch() -> None:
    assert normalize_arch("gfx90a-xnack+") == "gfx90a:xnack+"
    assert normalize_arch("hipv4-amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-") == (
        "gfx942:sramecc+:xnack-"
    )
    assert normalize_arch("gfx10-3-generic") == "gfx10-3-generic"


@pytest.mark.parametrize(
    ("directory", "key"),
    [
        ("amd-gfx11xx", "gfx11"),
        ("amd-gfx120x", "gfx12_0"),
        ("amd-gfx110x", "gfx110x"),
        ("amd-gfx115x", "gfx115x"),
        ("amd-gfx942", "gfx942"),
        ("amd-gfx90a", "gfx90a"),
        ("amd-gfx13xx", "gfx13xx"),
    ],
)
def test_aotriton_directories(directory: str, key: str) -> None:
    assert hierarchy().aotriton_key(directory) == key


def test_order_and_names() -> None:
    table = hierarchy()
    keys = ["gfx1100", "gfx11", "gfx110x", "gfx942", "gfx9", "gfx803", "gfx12_0", "gfx1201"]
    assert sorted(keys, key=table.sort_key) == [
        "gfx803",
        "gfx9",
        "gfx942",
        "gfx11",
        "gfx110x",
        "gfx1100",
        "gfx12_0",
        "gfx1201",
    ]
    assert wheel_escape("amd-torch-device-gfx12-0") == "amd_torch_device_gfx12_0"
