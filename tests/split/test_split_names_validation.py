"""Output names are composed only from validated parts (issue 10, item 1).

The rule: whatever METADATA, WHEEL, a file name or a flag says, a name we write is one path
component that reads back as what we meant, or the input is refused with InputError. The
property tests feed arbitrary text to every composer.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from wheel_size.errors import InputError, InvalidBundle, InvalidWheel
from wheel_size.split.metadata import (
    DeviceBundle,
    HostIdentity,
    check_requirement,
    device_metadata,
    extra_name,
    parse_identity,
)
from wheel_size.split.names import (
    check_bundle_key,
    check_device_prefix,
    check_target_id,
    device_dist_name,
    hierarchy,
)
from wheel_size.wheel.filename import parse_wheel_name, wheel_filename
from wheel_size.wheel.writer import WheelEntry, write_tree, write_wheel

TAG = "cp311-cp311-manylinux_2_28_x86_64"


def is_one_component(name: str) -> bool:
    return (
        "/" not in name
        and "\\" not in name
        and name not in (".", "..")
        and all(32 <= ord(ch) != 127 for ch in name)
    )


@given(st.text(max_size=40), st.text(max_size=40), st.text(max_size=40))
def test_wheel_filename_is_one_safe_component_or_refused(
    name: str, version: str, tags: str
) -> None:
    try:
        filename = wheel_filename(name, version, tags)
    except InputError:
        return
    assert is_one_component(filename)
    assert parse_wheel_name(filename).filename == filename


@given(st.text(max_size=30))
def test_device_names_from_any_key_are_safe_or_refused(key: str) -> None:
    try:
        dist = device_dist_name("amd-torch-device", key)
        extra = extra_name(key, "device")
    except InputError:
        return
    filename = wheel_filename(dist, "1.0", TAG)
    assert is_one_component(filename)
    assert "\n" not in extra and "/" not in extra


@given(st.text(max_size=40))
def test_any_metadata_version_is_normalised_or_refused(version: str) -> None:
    meta = f"Metadata-Version: 2.1\nName: torch\nVersion: {version}\n\n".encode()
    try:
        identity = parse_identity(meta, f"Tag: {TAG}\n".encode(), source="w.whl")
    except InvalidWheel:
        return
    assert is_one_component(identity.version)
    assert "\n" not in identity.version and identity.version.strip() == identity.version


def test_composition_normalises() -> None:
    assert (
        wheel_filename("Torch.Nightly", "2.10.0-RC1+ROCm7.1", TAG)
        == f"torch_nightly-2.10.0rc1+rocm7.1-{TAG}.whl"
    )
    assert wheel_filename("a", "1", "py2.py3-none-any", build="1b") == "a-1-1b-py2.py3-none-any.whl"


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (("torch", "1.0/../../x", TAG), "PEP 440"),
        (("../torch", "1.0", TAG), "PEP 508"),
        (("torch", "1.0", "cp311-cp311-linux/../x"), "PEP 425"),
        (("torch", "1.0", "cp311-cp311-.."), "PEP 425"),
        (("torch", "1.0", "cp311-cp311"), "PEP 425"),
    ],
)
def test_composition_refuses(args: tuple[str, str, str], needle: str) -> None:
    with pytest.raises(InputError, match=needle):
        wheel_filename(*args)
    with pytest.raises(InputError, match="build tag"):
        wheel_filename("torch", "1.0", TAG, build="x/../y")


@pytest.mark.parametrize(
    "name",
    [
        "torch-1.0-cp311-cp311-linux x86_64.whl",
        "torch-1.0-1 x-cp311-cp311-linux_x86_64.whl",
        "torch-1.0-1$x-cp311-cp311-linux_x86_64.whl",
        "torch-1.0-cp311-cp311-...whl",
        "torch-1.0-cp311.-cp311-linux_x86_64.whl",
        "törch-1.0-py3-none-any.whl",
    ],
)
def test_parsed_file_names_are_strict(name: str) -> None:
    with pytest.raises(InvalidWheel, match="invalid wheel file name"):
        parse_wheel_name(name)


@pytest.mark.parametrize("prefix", ["../x", "a/b", "amd\ntorch", "-amd", "amd torch", "", "ä"])
def test_device_prefix_is_a_distribution_name(prefix: str) -> None:
    with pytest.raises(InputError, match="--device-package-prefix"):
        check_device_prefix(prefix)


def test_device_prefix_may_end_in_a_dash() -> None:
    assert device_dist_name("amd-torch-device-", "gfx12_0") == "amd-torch-device-gfx12-0"


@pytest.mark.parametrize("key", ["gfx9..x", "gfx/942", "GFX942", "gfx942\n", "", "gfx_", "-gfx"])
def test_bundle_keys_are_plain(key: str) -> None:
    with pytest.raises(InvalidBundle, match=r"w\.whl"):
        check_bundle_key(key, "w.whl")


def test_every_pinned_key_and_target_passes() -> None:
    table = hierarchy()
    keys = set(table.sub_family_of) | set(table.family_of) | set(table.families)
    for key in keys:
        check_bundle_key(key, "pinned")
        extra_name(key, "plain")
    for target in ("gfx942:sramecc+:xnack-", "gfx90a:xnack+", "gfx10-3-generic", "gfx1100"):
        assert check_target_id(target, "x") == target


@pytest.mark.parametrize("target", ["gfx942/../x", "gfx942:xnack", "gfx942:", ":xnack+", "../x"])
def test_target_ids_are_plain(target: str) -> None:
    with pytest.raises(InvalidBundle, match="kpack"):
        check_target_id(target, "w.whl:lib.so")


@pytest.mark.parametrize(
    "requirement", ["foo\nName: evil", "foo\r\nX: y", "foo ; ; ;", "", "foo\x00"]
)
def test_requirement_flags_are_one_pep508_line(requirement: str) -> None:
    with pytest.raises(InputError, match="--device-requires-dist"):
        check_requirement(requirement)
    assert check_requirement("amd-rocm-runtime-@GFXARCH@ >= 7.1") == (
        "amd-rocm-runtime-@GFXARCH@ >= 7.1"
    )


def test_device_metadata_cannot_gain_a_header() -> None:
    table = hierarchy()
    bundle = DeviceBundle("gfx942", "target", "amd-torch-device-gfx942")
    identity = HostIdentity("torch", "1.0", (TAG,))
    text = device_metadata(bundle, identity, {"gfx942": bundle}, table).decode()
    assert [line.split(":")[0] for line in text.splitlines()] == [
        "Metadata-Version",
        "Name",
        "Version",
        "Summary",
        "Requires-Dist",
    ]
    hostile = HostIdentity("torch", "1.0\nRequires-Dist: evil", (TAG,))
    with pytest.raises(InputError, match="line break"):
        device_metadata(bundle, hostile, {"gfx942": bundle}, table)


@pytest.mark.parametrize("member", ["../escape.txt", "a/../../escape.txt", "/abs.txt"])
@pytest.mark.parametrize("writer", ["tree", "zip"])
def test_writers_refuse_member_paths_that_leave(tmp_path: Path, member: str, writer: str) -> None:
    entries = [WheelEntry(member, data=b"x"), WheelEntry("d-1.dist-info/METADATA", data=b"m")]
    dest = tmp_path / "out" / ("d-1" if writer == "tree" else "d-1-py3-none-any.whl")
    with pytest.raises(InputError):
        if writer == "tree":
            write_tree(dest, entries, dist_info="d-1.dist-info")
        else:
            write_wheel(dest, entries, dist_info="d-1.dist-info")
    assert not (tmp_path / "escape.txt").exists()
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())
