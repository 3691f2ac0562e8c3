from __future__ import annotations

import pytest

from wheel_size.errors import InputError
from wheel_size.variants import ArtifactNaming, canonical_python, canonical_variant


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("cpu", "cpu"),
        ("XPU", "xpu"),
        ("cuda12_8", "cuda12_8"),
        ("cu128", "cuda12_8"),
        ("cu130", "cuda13_0"),
        ("cu118", "cuda11_8"),
        ("cuda 12.8", "cuda12_8"),
        ("CUDA 12.8", "cuda12_8"),
        ("cuda13.0", "cuda13_0"),
        ("cuda-12.6", "cuda12_6"),
        ("12.8", "cuda12_8"),
        ("rocm6.4", "rocm6_4"),
        ("rocm6_4", "rocm6_4"),
        ("ROCm 7.0", "rocm7_0"),
        ("rocm6.4.1", "rocm6_4_1"),
    ],
)
def test_canonical_variant(text: str, expected: str) -> None:
    assert canonical_variant(text) == expected


@pytest.mark.parametrize("text", ["gpu", "12", "cuda", "", "rocm"])
def test_not_a_variant_spelling(text: str) -> None:
    assert canonical_variant(text) is None


@pytest.mark.parametrize("text", ["3.12", "py3.12", "cp312", "py3_12", "312"])
def test_python_tag(text: str) -> None:
    assert canonical_python(text) == "py3_12"


def test_bad_python_tag() -> None:
    with pytest.raises(InputError, match="python tag"):
        canonical_python("snake")


def test_default_artifact_name_and_pattern() -> None:
    naming = ArtifactNaming()
    assert naming.artifact("cuda12_8") == "manywheel-py3_12-cuda12_8"
    assert ArtifactNaming(python="py3_13").artifact("cpu") == "manywheel-py3_13-cpu"
    custom = ArtifactNaming("torchvision-{variant}-wheel")
    assert custom.artifact("cu128") == "torchvision-cu128-wheel"
    assert custom.variant_of("torchvision-cpu-wheel") == "cpu"
    assert custom.variant_of("manywheel-py3_12-cpu") is None


def test_pattern_must_have_variant() -> None:
    with pytest.raises(InputError, match="variant"):
        ArtifactNaming("manywheel-{python}")
    with pytest.raises(InputError, match="may only use"):
        ArtifactNaming("x-{variant}-{arch}")


def test_resolve_against_seen_names() -> None:
    seen = ["manywheel-py3_12-cpu", "manywheel-py3_12-cuda12_8", "manywheel-py3_13-cpu", "other"]
    naming = ArtifactNaming()
    assert naming.resolve("CUDA 12.8", seen) == "cuda12_8"
    assert naming.resolve("cpu", seen) == "cpu"
    with pytest.raises(InputError) as exc:
        naming.resolve("rocm6.4", seen)
    msg = str(exc.value)
    assert "manywheel-py3_12-rocm6_4" in msg
    assert "variants seen: cpu, cuda12_8" in msg
    assert "\n" not in msg


def test_resolve_verbatim_variant_from_data() -> None:
    seen = ["manywheel-py3_12-cpu-cxx11-abi"]
    assert ArtifactNaming().resolve("cpu-cxx11-abi", seen) == "cpu-cxx11-abi"


def test_resolve_without_data_rejects_nonsense() -> None:
    with pytest.raises(InputError, match="unknown variant 'gpu'"):
        ArtifactNaming().resolve("gpu")
