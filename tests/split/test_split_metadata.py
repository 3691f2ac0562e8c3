"""METADATA of the host, variant and device wheels."""

from __future__ import annotations

import json
from email.parser import BytesHeaderParser

import pytest
from packaging.metadata import Metadata
from packaging.requirements import Requirement

from wheel_size.errors import InputError
from wheel_size.split.metadata import (
    DeviceBundle,
    check_variant_label,
    device_metadata,
    device_wheel_file,
    host_metadata,
    parse_identity,
    variant_json,
)
from wheel_size.split.names import device_dist_name, hierarchy

ORIGINAL = (
    b"Metadata-Version: 2.1\n"
    b"Name: torch\n"
    b"Version: 2.10.0+rocm7.1\n"
    b"Summary: Tensors and Dynamic neural networks\n"
    b"Requires-Dist: filelock\n"
    b"Provides-Extra: opt-einsum\n"
    b'Requires-Dist: opt-einsum>=3.3; extra == "opt-einsum"\n'
    b"Description-Content-Type: text/markdown\n"
    b"\n"
    b"# PyTorch\n\nSome: header-looking line in the body\n"
)
WHEEL = (
    b"Wheel-Version: 1.0\nGenerator: bdist_wheel\nRoot-Is-Purelib: false\n"
    b"Tag: cp313-cp313-manylinux_2_28_x86_64\n"
)
KEYS = ["gfx90a", "gfx942", "gfx11", "gfx110x", "gfx1100", "gfx1151", "gfx12_0", "gfx1201"]


def bundles() -> list[DeviceBundle]:
    table = hierarchy()
    return [DeviceBundle(k, table.level(k), device_dist_name("amd-torch-device", k)) for k in KEYS]


def requirements(metadata: bytes) -> list[Requirement]:
    headers = BytesHeaderParser().parsebytes(metadata)
    return [Requirement(str(r)) for r in headers.get_all("Requires-Dist") or []]


def test_identity() -> None:
    identity = parse_identity(ORIGINAL, WHEEL, source="w")
    assert (identity.name, identity.version) == ("torch", "2.10.0+rocm7.1")
    assert identity.tag_string == "cp313-cp313-manylinux_2_28_x86_64"
    assert identity.group == "torch"


def test_host_keeps_everything_and_adds_extras() -> None:
    identity = parse_identity(ORIGINAL, WHEEL, source="w")
    out = host_metadata(ORIGINAL, identity, bundles(), hierarchy(), naming="plain")
    text = out.decode()
    # Every original line survives, the body stays the body.
    for line in ORIGINAL.decode().splitlines():
        assert line in text.splitlines()
    assert text.endswith("# PyTorch\n\nSome: header-looking line in the body\n")
    meta = Metadata.from_email(out)
    assert meta.name == "torch"
    assert {"opt-einsum", "gfx90a", "gfx942", "gfx1100", "gfx1151", "gfx1201", "all"} == {
        str(e) for e in meta.provides_extra or []
    }
    reqs = requirements(out)
    assert "variant_properties" not in text
    by_extra: dict[str, set[str]] = {}
    for req in reqs:
        for extra in ["gfx1100", "gfx1151", "gfx1201", "gfx942", "gfx90a", "all"]:
            if req.marker and req.marker.evaluate({"extra": extra}):
                by_extra.setdefault(extra, set()).add(req.name)
    assert by_extra["gfx1100"] == {
        "amd-torch-device-gfx1100",
        "amd-torch-device-gfx110x",
        "amd-torch-device-gfx11",
    }
    assert by_extra["gfx1151"] == {"amd-torch-device-gfx1151", "amd-torch-device-gfx11"}
    assert by_extra["gfx1201"] == {"amd-torch-device-gfx1201", "amd-torch-device-gfx12-0"}
    assert by_extra["gfx942"] == {"amd-torch-device-gfx942"}
    assert by_extra["all"] == {b.dist for b in bundles()}
    pinned = [r for r in reqs if r.name.startswith("amd-torch-device")]
    assert all(str(r.specifier) == "==2.10.0+rocm7.1" for r in pinned)
    assert any(r.name == "rocm-bootstrap" and r.marker is None for r in reqs)


def test_device_extra_naming() -> None:
    identity = parse_identity(ORIGINAL, WHEEL, source="w")
    out = host_metadata(ORIGINAL, identity, bundles(), hierarchy(), naming="device")
    extras = {str(e) for e in Metadata.from_email(out).provides_extra or []}
    assert {"device-gfx1100", "device-all"} <= extras
    assert "gfx1100" not in extras


def test_variant_metadata_has_markers() -> None:
    identity = parse_identity(ORIGINAL, WHEEL, source="w")
    out = host_metadata(ORIGINAL, identity, bundles(), hierarchy(), naming="plain", variant=True)
    lines = [ln for ln in out.decode().splitlines() if "variant_properties" in ln]
    assert (
        'Requires-Dist: amd-torch-device-gfx11 == 2.10.0+rocm7.1; "amd :: gfx_arch :: gfx1100"'
        " in variant_properties"
    ) in lines
    assert not any('extra == "all"' in ln for ln in lines)


def test_conflicting_extra_is_refused() -> None:
    original = ORIGINAL.replace(b"Provides-Extra: opt-einsum", b"Provides-Extra: all")
    identity = parse_identity(original, WHEEL, source="w")
    with pytest.raises(InputError, match="already declares extra"):
        host_metadata(original, identity, bundles(), hierarchy(), naming="plain")


def test_host_metadata_without_body() -> None:
    original = ORIGINAL.split(b"\n\n")[0]  # no trailing newline, no body
    identity = parse_identity(original, WHEEL, source="w")
    out = host_metadata(original, identity, bundles()[:1], hierarchy(), naming="plain")
    assert out.decode().splitlines()[-1] == (
        'Requires-Dist: amd-torch-device-gfx90a == 2.10.0+rocm7.1; extra == "all"'
    )


def test_device_metadata_requires_parents() -> None:
    identity = parse_identity(ORIGINAL, WHEEL, source="w")
    emitted = {b.key: b for b in bundles()}
    out = device_metadata(
        emitted["gfx1100"], identity, emitted, hierarchy(), ["rocm-sdk-device-@GFXARCH@"]
    )
    meta = Metadata.from_email(out)
    assert meta.name == "amd-torch-device-gfx1100"
    assert [str(r) for r in meta.requires_dist or []] == [
        "torch==2.10.0+rocm7.1",
        "amd-torch-device-gfx110x==2.10.0+rocm7.1",
        "amd-torch-device-gfx11==2.10.0+rocm7.1",
        "rocm-sdk-device-gfx1100",
    ]
    family = device_metadata(emitted["gfx11"], identity, emitted, hierarchy(), ["x-@GFXARCH@"])
    assert [str(r) for r in Metadata.from_email(family).requires_dist or []] == [
        "torch==2.10.0+rocm7.1"
    ]
    assert b"Tag: cp313-cp313-manylinux_2_28_x86_64" in device_wheel_file(identity)


def test_variant_json_and_label() -> None:
    document = json.loads(variant_json("rocm", ["gfx942", "gfx1100"]))
    assert document["variants"] == {"rocm": {"amd": {"gfx_arch": ["gfx1100", "gfx942"]}}}
    assert document["default-priorities"]["namespace"] == ["amd"]
    assert "providers" not in document
    assert check_variant_label("rocm7.1") == "rocm7.1"
    for bad in ["null", "UPPER", "a" * 17, "gfx-1"]:
        with pytest.raises(InputError):
            check_variant_label(bad)
