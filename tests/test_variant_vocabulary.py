"""One variant vocabulary (issue 18, point 8): every reader of a variant name asks
:func:`wheel_size.variants.variant_key`, so ``cuda-cpu`` cannot read as CPU in the
cross-variant evidence and as CUDA in the fingerprint."""

from __future__ import annotations

import pytest

from wheel_size.regressions.builds.evidence import build_job_pattern
from wheel_size.regressions.builds.logs import variant_hints
from wheel_size.regressions.ranking.evidence import cross_variant
from wheel_size.regressions.ranking.fingerprint import fingerprint
from wheel_size.series import variant_family
from wheel_size.variants import variant_key

# name → kind, toolkit version, OS, Python, the local version tag its wheels carry
TABLE = [
    ("cpu", "cpu", None, "linux", None, "cpu"),
    ("xpu", "xpu", None, "linux", None, "xpu"),
    ("cuda12_8", "cuda", "12.8", "linux", None, "cu128"),
    ("cu128", "cuda", "12.8", "linux", None, "cu128"),
    ("cu92", "cuda", "9.2", "linux", None, "cu92"),
    ("cuda13_0", "cuda", "13.0", "linux", None, "cu130"),
    ("rocm7_0", "rocm", "7.0", "linux", None, "rocm7.0"),
    ("rocm6_4_1", "rocm", "6.4", "linux", None, "rocm6.4"),
    ("py3_13t-cpu", "cpu", None, "linux", "3.13t", "cpu"),
    ("py3_14-cuda13_0", "cuda", "13.0", "linux", "3.14", "cu130"),
    ("manywheel-py3_12-cuda12_8", "cuda", "12.8", "linux", "3.12", "cu128"),
    ("cpu-aarch64", "cpu", None, "aarch64", None, "cpu"),
    ("cpu-cxx11-abi", "cpu", None, "linux", None, "cpu"),
    ("win-cuda12_8", "cuda", "12.8", "windows", None, "cu128"),
    # The ambiguous ones: an accelerator wins over "cpu", ROCm over CUDA (hipified CUDA
    # sources build for ROCm), the OS's digits are no toolkit version, and a word counts
    # only whole ("chip" is not HIP).
    ("cuda-cpu", "cuda", None, "linux", None, "cuda-cpu"),
    ("cpu-cuda12_8", "cuda", "12.8", "linux", None, "cu128"),
    ("xpu-cpu", "xpu", None, "linux", None, "xpu"),
    ("rocm6_4-cuda", "rocm", "6.4", "linux", None, "rocm6.4"),
    ("cuda-aarch64-12_9", "cuda", "12.9", "aarch64", None, "cu129"),
    ("chip", "other", None, "linux", None, "chip"),
    ("cp313t", "other", None, "linux", "3.13t", "cp313t"),
]


@pytest.mark.parametrize(("name", "kind", "version", "os", "python", "tag"), TABLE)
def test_one_reading_of_variant_names(
    name: str, kind: str, version: str | None, os: str, python: str | None, tag: str
) -> None:
    key = variant_key(name)
    assert (key.kind, key.version, key.os, key.python, key.local_tag) == (
        kind,
        version,
        os,
        python,
        tag,
    )


@pytest.mark.parametrize("name", [row[0] for row in TABLE])
def test_every_reader_agrees(name: str) -> None:
    key = variant_key(name)
    # The series' rename rule moves between variants of one kind.
    if key.kind != "other":
        assert variant_family(name) == key.kind
    # The build-log hints look for the wheel's local version tag.
    assert variant_hints(name, None)[0] == key.local_tag


def test_cuda_cpu_reads_as_cuda_in_the_fingerprint_and_in_the_cross_variant_evidence() -> None:
    # Before: the cross-variant evidence read "cuda-cpu" as the CPU wheel ("CPU grew with
    # the GPU builds") while the fingerprint called it CUDA.
    deltas: dict[str, float | None] = {"cuda-cpu": 6.0, "cpu": 0.0, "cuda12_8": 6.1}
    assert fingerprint("cuda-cpu", deltas).moved_kinds() == {"cuda"}
    reading = cross_variant("cuda-cpu", deltas)
    assert reading.pattern == "device"
    assert "The CPU wheel did not grow" in reading.reading


def test_the_python_tag_of_an_artifact_is_read_once_free_threaded_included() -> None:
    artifact = "manywheel-py3_13t-cuda12_8"
    assert variant_hints("cuda12_8", artifact) == ("cu128", "cp313t")
    pattern = build_job_pattern("manywheel-{python}-{variant}-build", "cuda12_8", artifact)
    assert pattern == "manywheel-py3_13t-cuda12_8-build"


# Issue 28 item 5: every artifact family a nightly publishes is a variant of its own.
# name → package, kind, version, OS, Python, ABI, build
FAMILIES = [
    ("manywheel-py3_12-cuda12_8", "wheel", "cuda", "12.8", "linux", "3.12", None, None),
    ("manywheel-py3_13t-cuda12_8", "wheel", "cuda", "12.8", "linux", "3.13t", None, None),
    ("manywheel-py3_12-cpu-aarch64", "wheel", "cpu", None, "aarch64", "3.12", None, None),
    ("manywheel-py3_12-cuda-aarch64-12_9", "wheel", "cuda", "12.9", "aarch64", "3.12", None, None),
    ("wheel-py3_12-cpu-macos-arm64", "wheel", "cpu", None, "macos", "3.12", None, None),
    ("wheel-py3_12-cpu-macos", "wheel", "cpu", None, "macos", "3.12", None, None),
    ("windows-wheel-py3_12-cuda12_8", "wheel", "cuda", "12.8", "windows", "3.12", None, None),
    (
        "libtorch-cuda12_8-shared-with-deps-release",
        "libtorch", "cuda", "12.8", "linux", None, None, "shared-with-deps-release",
    ),
    (
        "libtorch-cpu-shared-with-deps-debug",
        "libtorch", "cpu", None, "linux", None, None, "shared-with-deps-debug",
    ),
    ("abi3-cu128", "wheel", "cuda", "12.8", "linux", None, "abi3", None),
    ("cpu-cxx11-abi", "wheel", "cpu", None, "linux", None, "cxx11", None),
]  # fmt: skip


@pytest.mark.parametrize(
    ("name", "package", "kind", "version", "os", "python", "abi", "build"), FAMILIES
)
def test_every_artifact_family_is_a_variant(
    name: str,
    package: str,
    kind: str,
    version: str | None,
    os: str,
    python: str | None,
    abi: str | None,
    build: str | None,
) -> None:
    key = variant_key(name)
    assert (key.package, key.kind, key.version, key.os, key.python, key.abi, key.build) == (
        package, kind, version, os, python, abi, build
    )  # fmt: skip


def test_like_with_like_and_the_same_build() -> None:
    x86 = variant_key("manywheel-py3_12-cuda12_8")
    assert x86.like(variant_key("manywheel-py3_12-cpu"))
    assert not x86.like(variant_key("manywheel-py3_13t-cpu"))  # free-threaded is its own
    assert not x86.like(variant_key("manywheel-py3_12-cpu-aarch64"))
    assert not x86.like(variant_key("libtorch-cpu-shared-with-deps-release"))
    assert variant_key("cuda12_8").like(variant_key("cpu"))  # one history, one Python
    assert not variant_key("cpu").like(variant_key("cpu-cxx11-abi"))
    assert x86.same_build(variant_key("cuda12_8"))
    assert not x86.same_build(variant_key("cuda12_9"))
    assert variant_key("manywheel-py3_13t-cpu").python_abi == "cp313t"
    assert variant_key("abi3-cpu").python_abi == "abi3"


def test_wheel_tags_read_as_a_variant_key() -> None:
    from wheel_size.variants import wheel_key

    ft = wheel_key(["cp313"], ["cp313t"], ["manylinux_2_28_x86_64"], "cu128")
    assert (ft.kind, ft.version, ft.os, ft.python, ft.abi) == (
        "cuda",
        "12.8",
        "linux",
        "3.13t",
        None,
    )
    gil = wheel_key(["cp313"], ["cp313"], ["manylinux_2_28_x86_64"], "cu128")
    assert gil.python == "3.13" and not gil.same_build(ft)
    assert wheel_key(["cp39"], ["abi3"], ["manylinux_2_28_aarch64"], "cpu").os == "aarch64"
    assert wheel_key(["cp39"], ["abi3"], ["win_amd64"], None).abi == "abi3"
    assert wheel_key(["cp312"], ["cp312"], ["macosx_11_0_arm64"], None).os == "macos"


@pytest.mark.parametrize(
    ("label", "expected"),
    [
        ("cuda12_8", "cu128"),  # before: "cuda12", so no CUDA major was ever read
        ("cu128", "cu128"),
        ("rocm6.4", "rocm6.4"),
        ("rocm7_0", "rocm7.0"),
        ("xpu", "xpu"),
        ("mps", "mps"),
        ("cpu", None),
        ("chip", None),
        (None, None),
    ],
)
def test_audit_reads_accelerators_through_the_variant_key(
    label: str | None, expected: str | None
) -> None:
    from wheel_size.audit.inspect import accelerator

    assert accelerator(label) == expected


def test_cross_variant_reading_compares_like_with_like() -> None:
    # An aarch64 CPU wheel and libtorch grew; the x86_64 CPU wheel of the same Python did
    # not. Before: "The CPU wheel grew too" (shared code) from the aarch64 wheel.
    deltas: dict[str, float | None] = {
        "cuda12_8": 6.0,
        "cpu": 0.0,
        "cpu-aarch64": 5.8,
        "libtorch-cpu-shared-with-deps-release": 5.9,
    }
    reading = cross_variant("cuda12_8", deltas)
    assert reading.pattern == "device"
    assert "The CPU wheel did not grow" in reading.reading
