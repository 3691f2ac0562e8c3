"""Property tests for wheel file names (PEP 427 / 425 / 440, PEP 825 variant labels)."""

from __future__ import annotations

from hypothesis import assume, given, settings
from hypothesis import strategies as st
from packaging.utils import canonicalize_name

from wheel_size.errors import InvalidWheel
from wheel_size.wheel.filename import parse_wheel_name

names = st.from_regex(r"[A-Za-z][A-Za-z0-9]{0,8}(_[A-Za-z0-9]{1,5}){0,2}", fullmatch=True)
releases = st.lists(st.integers(0, 99), min_size=1, max_size=3).map(lambda p: ".".join(map(str, p)))
locals_ = st.one_of(
    st.none(), st.from_regex(r"(cu1[0-9]{2}|rocm[0-9]\.[0-9]|xpu|cpu)", fullmatch=True)
)
pythons = st.sampled_from(["py3", "cp39", "cp312", "cp313t", "py2.py3"])
abis = st.sampled_from(["none", "abi3", "cp312"])
platforms = st.sampled_from(
    ["any", "linux_x86_64", "manylinux_2_28_x86_64", "manylinux_2_17_x86_64.manylinux2014_x86_64",
     "macosx_11_0_arm64", "win_amd64", "musllinux_1_2_aarch64"]
)  # fmt: skip
variants = st.one_of(st.none(), st.from_regex(r"[0-9a-z_.]{1,16}", fullmatch=True))
builds = st.one_of(st.none(), st.integers(0, 999).map(str))


@settings(max_examples=400)
@given(names, releases, locals_, builds, pythons, abis, platforms, variants)
def test_built_names_parse_back(
    name: str, release: str, local: str | None, build: str | None, py: str, abi: str,
    plat: str, variant: str | None,
) -> None:  # fmt: skip
    assume(not (build and variant))  # 7 parts: the variant label follows the build tag
    version = release + (f"+{local}" if local else "")
    parts = [
        name,
        version,
        *([build] if build else []),
        py,
        abi,
        plat,
        *([variant] if variant else []),
    ]
    parsed = parse_wheel_name("-".join(parts) + ".whl")
    assert parsed.distribution == canonicalize_name(name)
    assert str(parsed.version.public) == str(parsed.version).split("+")[0]
    assert parsed.local_label == local
    assert parsed.variant_label == variant
    assert parsed.platform_tags == sorted(plat.split("."))
    assert parsed.python_tags == sorted(py.split("."))
    assert parsed.build == ((int(build), "") if build else ())


@settings(max_examples=400)
@given(st.text(max_size=80))
def test_any_name_parses_or_fails_with_one_line(text: str) -> None:
    try:
        parse_wheel_name(text + ".whl")
    except InvalidWheel as exc:
        assert "\n" not in str(exc)
