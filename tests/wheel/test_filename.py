from __future__ import annotations

import pytest

from wheel_size.errors import InvalidWheel
from wheel_size.wheel.filename import parse_wheel_name


def test_plain_platform_wheel() -> None:
    name = parse_wheel_name("torch-2.10.0+rocm7.1-cp313-cp313-manylinux_2_28_x86_64.whl")
    assert name.distribution == "torch"
    assert str(name.version) == "2.10.0+rocm7.1"
    assert name.local_label == "rocm7.1"
    assert name.python_tags == ["cp313"]
    assert name.platform_tags == ["manylinux_2_28_x86_64"]
    assert name.variant_label is None


def test_compressed_tag_set_and_abi3() -> None:
    name = parse_wheel_name(
        "torchao-0.7.0-cp312-cp312-manylinux_2_17_x86_64.manylinux2014_x86_64.whl"
    )
    assert name.platform_tags == ["manylinux2014_x86_64", "manylinux_2_17_x86_64"]
    assert parse_wheel_name("torchao-0.8.0-cp39-abi3-linux_x86_64.whl").abi_tags == ["abi3"]


def test_variant_label_is_recognised() -> None:
    name = parse_wheel_name("torch-2.10.0-cp313-cp313-manylinux_2_28_x86_64-gfx1100.whl")
    assert name.variant_label == "gfx1100"
    assert name.platform_tags == ["manylinux_2_28_x86_64"]


def test_build_tag_without_variant() -> None:
    name = parse_wheel_name("demo-1.0-1-py3-none-any.whl")
    assert name.build == (1, "")
    assert name.variant_label is None


@pytest.mark.parametrize("bad", ["demo-1.0.tar.gz", "demo-py3-none-any.whl", "x.whl"])
def test_invalid_names(bad: str) -> None:
    with pytest.raises(InvalidWheel, match=bad.replace(".", r"\.")):
        parse_wheel_name(bad)
