"""One variant vocabulary (issue 18, point 8): every reader of a variant name asks
:func:`wheel_size.variants.variant_key`, so ``cuda-cpu`` cannot read as CPU in the
cross-variant evidence and as CUDA in the fingerprint."""

from __future__ import annotations

import ast
import re

import pytest

from conftest import SRC
from wheel_size.regressions.builds.evidence import build_job_pattern
from wheel_size.regressions.builds.logs import variant_hints
from wheel_size.regressions.ranking.evidence import cross_variant
from wheel_size.regressions.ranking.fingerprint import fingerprint
from wheel_size.series import variant_family
from wheel_size.variants import (
    ArtifactNaming,
    JobPlatform,
    job_platform,
    variant_key,
    without_toolkit_versions,
)

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


# Issue 33 item 3: the audit and the PR check read variants, job names and artifact names
# through :mod:`wheel_size.variants`, and spell no variant word in a regex of their own.
_VARIANT_WORDS = re.compile(
    r"cuda|rocm|hip|xpu|mps|npu|tpu|gpu|cu\\d|cu\(|cu\||py3|cp3|\(\?:py\|cp\)|aarch64|arm64|"
    r"darwin|(?<![a-z])win|x86|amd64",
    re.I,
)
_RE_CALLS = {"compile", "match", "search", "fullmatch", "sub", "subn", "finditer", "findall"}


def variant_regexes(source: str) -> list[str]:
    """The regular expressions in ``source`` that read variant words (``re.compile(…)`` and
    the other ``re`` calls, and the parts of a regex assembled in a list)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call) or not node.args:
            continue
        func = node.func
        is_re = (
            isinstance(func, ast.Attribute)
            and func.attr in _RE_CALLS
            and isinstance(func.value, ast.Name)
            and func.value.id == "re"
        )
        is_part = isinstance(func, ast.Attribute) and func.attr == "append"
        text = node.args[0]
        if not isinstance(text, ast.Constant) or not isinstance(text.value, str):
            continue
        if _VARIANT_WORDS.search(text.value) and (is_re or (is_part and "(?P<" in text.value)):
            found.append(text.value)
    return found


def test_audit_and_the_pr_check_spell_no_variant_regex() -> None:
    package = SRC / "wheel_size"
    paths = [*(package / "audit").glob("*.py"), *(package / "check").glob("*.py")]
    paths += [package / "github" / "check_run.py"]
    spelled = {
        p.relative_to(package).as_posix(): found
        for p in sorted(paths)
        if p.exists() and (found := variant_regexes(p.read_text(encoding="utf-8")))
    }
    assert not spelled, f"read variant names through wheel_size.variants: {spelled}"


def test_the_scan_sees_the_regexes_the_audit_had() -> None:
    before = """
_ACCELERATOR_JOB = re.compile(r"(^|[^a-z])(cuda|cu\\d{2,3}|rocm|hip|xpu|gpu|mps)", re.I)
_OS = ((re.compile(r"win", re.I), 2), (re.compile(r"mac|darwin|osx", re.I), 3))
def _cuda_major(label):
    return re.match(r"^cu(\\d+?)(\\d)$", label)
def parts(pattern):
    regex.append(r"(?P<python>(?:py|cp)3_?\\d{1,2}t?)")
TAG = re.compile(r"^manylinux_(\\d+)_(\\d+)_")  # a platform tag, not a variant
"""
    assert len(variant_regexes(before)) == 5


@pytest.mark.parametrize("name", [row[0] for row in TABLE + [f[:1] for f in FAMILIES]])
def test_job_names_read_as_their_variant_key(name: str) -> None:
    key, job = variant_key(name), job_platform(name)
    gpu = key.kind in ("cuda", "rocm", "xpu")
    assert job.accelerator == (key.kind if gpu else None)
    if key.os in ("windows", "macos"):
        assert job.os == key.os
    assert (job.machine == "aarch64") == (key.os == "aarch64" or "arm64" in name)


@pytest.mark.parametrize(
    ("job", "accelerator", "os", "machine"),
    [
        ("d-linux-cuda12.8", "cuda", "linux", None),
        ("wheels-darwin-arm64", None, "macos", "aarch64"),  # before: "win" in darwin: Windows
        ("b-windows-x64", None, "windows", "x86_64"),
        ("f-linux-ppc64le", None, "linux", "other"),
        ("ubuntu-gpu", "gpu", "linux", None),
        ("build-macos-m2", None, "macos", "aarch64"),
        ("manywheel-py3_12-rocm6_4", "rocm", None, None),  # the OS is not named
        ("wheels-mps", "mps", None, None),
        ("linux-cuda-aarch64-12_9", "cuda", "linux", "aarch64"),
    ],
)
def test_what_a_job_name_says(job: str, accelerator: str, os: str, machine: str) -> None:
    assert job_platform(job) == JobPlatform(accelerator, os, machine)


def test_audit_reads_the_cuda_major_and_the_toolkit_in_a_file_name_through_variants() -> None:
    from wheel_size.audit.matrix import _cuda_major

    assert [_cuda_major(x) for x in ("cu128", "cu92", "cu130", "rocm6.4", "")] == [
        12,
        9,
        13,
        None,
        None,
    ]
    assert without_toolkit_versions("libbnb_cuda118.so") == without_toolkit_versions(
        "libbnb_cuda130.so"
    )


def test_the_pr_check_splits_artifact_names_with_the_naming() -> None:
    naming = ArtifactNaming()
    assert naming.split_artifact("manywheel-py3_13t-cuda12_8") == ("py3_13t", "cuda12_8")
    assert naming.split_artifact("manywheel-cp312-cpu") == ("py3_12", "cpu")
    assert naming.split_artifact("wheel-py3_12-cpu") is None
