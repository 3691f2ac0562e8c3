"""From what people type ("CUDA 12.8", "cu128", "rocm6.4") to the artifact a nightly uploads.

People name builds the way release notes and pip index URLs do; the workflow names artifacts
with a pattern such as ``manywheel-py3_12-cuda12_8``. Keeping the two apart lets one tool
serve torch, torchvision, torchaudio, torchao and non-PyTorch projects: only the pattern
changes.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from wheel_size.errors import InputError

__all__ = [
    "DEFAULT_PATTERN",
    "DEFAULT_PYTHON",
    "DEFAULT_VARIANT",
    "KIND_LABEL",
    "ArtifactNaming",
    "JobPlatform",
    "VariantKey",
    "VariantKind",
    "canonical_python",
    "canonical_variant",
    "job_platform",
    "other_accelerator",
    "variant_key",
    "wheel_key",
    "without_toolkit_versions",
]

DEFAULT_PATTERN = "manywheel-{python}-{variant}"
DEFAULT_PYTHON = "py3_12"
DEFAULT_VARIANT = "cuda12_8"

_VERSION = r"(\d+)(?:[._](\d+))?(?:[._](\d+))?"
_CUDA_WORDS = re.compile(rf"^(?:cuda|cu)?[\s_-]*{_VERSION}$")
_CU_COMPACT = re.compile(r"^cu(\d{2,3})$")
_ROCM = re.compile(rf"^rocm[\s_-]*{_VERSION}$")
# A trailing "t" is a free-threaded build (3.13t, cp313t, py3_13t): a wheel of its own.
_PYTHON = re.compile(r"^(?:py|cp|python)?[\s_-]*(\d)[._]?(\d{1,2})(t?)$")


def _joined(*parts: str | None) -> str:
    return "_".join(p for p in parts if p is not None)


def canonical_variant(text: str) -> str | None:
    """The artifact spelling of a variant (``cuda12_8``, ``rocm6_4``, ``cpu``), or None.

    ``None`` means the text is not a spelling we know how to normalise; the caller may still
    find it verbatim among the artifacts of a run.
    """
    t = text.strip().lower()
    if t in {"cpu", "xpu"}:
        return t
    compact = _CU_COMPACT.match(t)
    if compact:
        digits = compact.group(1)
        # cu118 / cu128 / cu130: the last digit is the minor version; cu92 is 9.2.
        return f"cuda{digits[:-1]}_{digits[-1]}"
    rocm = _ROCM.match(t)
    if rocm:
        return "rocm" + _joined(*rocm.groups())
    cuda = _CUDA_WORDS.match(t)
    if cuda and (t.startswith("cu") or cuda.group(2) is not None):
        # A bare "12.8" is a CUDA version (the seed's table); a bare "12" is not enough.
        if cuda.group(2) is None:
            return None
        return "cuda" + _joined(*cuda.groups())
    return None


def canonical_python(text: str) -> str:
    """``3.12``, ``py3.12``, ``cp312``, ``py3_12`` → ``py3_12``; ``3.13t``, ``cp313t`` →
    ``py3_13t`` (the manywheel spelling)."""
    m = _PYTHON.match(text.strip().lower())
    if not m:
        raise InputError(f"python tag {text!r} is not a Python version such as 3.12 or py3_12")
    return f"py{m.group(1)}_{m.group(2)}{m.group(3)}"


VariantKind = Literal["cpu", "cuda", "rocm", "xpu", "other"]

KIND_LABEL = {"cpu": "CPU", "cuda": "CUDA", "rocm": "ROCm", "xpu": "XPU", "other": "other"}
# Words count only as whole words at their start ("hip" in "chip" is not ROCm); a toolkit
# name may run into its version ("cuda12", "cu128", "rocm6").
_ROCM_WORD = re.compile(r"(?<![a-z])(?:rocm|hip)(?![a-z])")
_XPU_WORD = re.compile(r"(?<![a-z])xpu(?![a-z])")
_CUDA_WORD = re.compile(r"(?<![a-z])(?:cuda(?![a-z])|cu(?=\d))")
_CPU_WORD = re.compile(r"(?<![a-z])cpu(?![a-z])")
_KEY_PYTHON = re.compile(r"(?<![a-z0-9])(?:py|cp)3[._]?(1\d)(t?)(?![0-9])")
_AARCH64 = re.compile(r"aarch64|arm64|sbsa")
_WINDOWS = re.compile(r"(?<![a-z])win")
_MACOS = re.compile(r"(?<![a-z])(?:mac|darwin)")
# What a nightly publishes besides Python wheels, and how one build of it differs from another.
_LIBTORCH = re.compile(r"(?<![a-z])libtorch(?![a-z])")
_LINKAGE = re.compile(r"(?<![a-z])(shared|static)-(with|without)-deps(?![a-z])")
_CONFIG = re.compile(r"(?<![a-z])(release|debug)(?![a-z])")
_ABI3 = re.compile(r"(?<![a-z0-9])abi3(?![a-z0-9])")
_CXX11 = re.compile(r"(?<![a-z])(pre-)?cxx11(?:-abi)?(?![a-z])")
_NAMED_VERSION = re.compile(r"(?<![a-z])(?:cuda|cu|rocm)[-_]?(\d{1,2})[._]?(\d)(?!\d)")
_BARE_VERSION = re.compile(r"(?<![\d.])(\d{1,2})[._](\d)(?!\d)")


@dataclass(frozen=True)
class VariantKey:
    """What a variant name says: platform kind, toolkit version, OS and Python.

    The one reading of variant names (issue 18): the fingerprint, the cross-variant
    evidence, the build-log hints, the report and the series' rename rule all ask this.
    """

    name: str
    kind: VariantKind
    version: str | None  # "12.8" for cuda12_8, "7.0" for rocm7_0
    os: str  # linux, aarch64, windows, macos
    python: str | None  # "3.12"; "3.13t" for the free-threaded build
    # Issue 28 item 5: every artifact family a nightly publishes is a variant of its own.
    package: str = "wheel"  # "wheel" (manywheel-…, wheel-…) or "libtorch"
    abi: str | None = None  # "abi3" (one wheel for every CPython 3), "cxx11" / "pre-cxx11"
    build: str | None = None  # libtorch's linkage and configuration: "shared-with-deps-release"

    @property
    def free_threaded(self) -> bool:
        """A free-threaded CPython build (``cp313t``): never the GIL build's wheel."""
        return bool(self.python and self.python.endswith("t"))

    @property
    def python_abi(self) -> str | None:
        """The CPython ABI its wheels carry: ``cp313t``, ``cp312``, ``abi3`` (None: not said)."""
        if self.abi == "abi3":
            return "abi3"
        if self.python is None:
            return None
        return "cp" + self.python.replace(".", "")

    def like(self, other: VariantKey) -> bool:
        """Built for the same platform and Python ABI, as the same package (the accelerator
        may differ): the variants one may read side by side, as the cross-variant reading
        does. A side that names no Python is read as the other's (``cpu`` next to
        ``cuda12_8`` in one history of one Python)."""
        python = self.python is None or other.python is None or self.python == other.python
        return python and (self.package, self.os, self.abi, self.build) == (
            other.package, other.os, other.abi, other.build
        )  # fmt: skip

    def same_build(self, other: VariantKey) -> bool:
        """The same build in every respect the names say (accelerator and its version
        included): what a pull request's wheel may be compared with."""
        return self.like(other) and (self.kind, self.version) == (other.kind, other.version)

    @property
    def label(self) -> str:
        text = KIND_LABEL[self.kind] + (f" {self.version}" if self.version else "")
        return text if self.os == "linux" else f"{text} ({self.os})"

    @property
    def family(self) -> str:
        """Variants a rename can move between (``cuda12_6`` → ``cuda12_8``): the kind, or
        for a name of no known kind its leading letters."""
        if self.kind != "other":
            return self.kind
        m = re.match(r"[a-z]+", self.name.lower())
        return m.group(0) if m else self.name

    @property
    def local_tag(self) -> str:
        """The local version label its wheels carry: ``cu128``, ``rocm6.4``, ``cpu``, ``xpu``
        (a toolkit without a version, or a name of no known kind: the name itself)."""
        if self.kind == "cuda" and self.version:
            return "cu" + self.version.replace(".", "")
        if self.kind == "rocm" and self.version:
            return "rocm" + self.version
        return self.kind if self.kind in ("cpu", "xpu") else self.name.lower()


def variant_key(name: str) -> VariantKey:
    """Read ``cuda12_8``, ``rocm7_0``, ``cpu``, ``xpu``, ``py3_13t-cpu``, ``cpu-aarch64``,
    ``cuda-aarch64-12_9``, ``libtorch-cuda12_8-shared-with-deps-release``, ``abi3-cpu``.

    An accelerator named in the name wins over ``cpu`` (``cuda-cpu`` is a CUDA build: every
    CUDA wheel carries CPU code too), and ROCm over CUDA (hipified CUDA sources build for
    ROCm, so a ROCm name may mention CUDA; never the reverse). A version is read after its
    toolkit's word, else as the only ``N_M`` left once the Python tag and OS are removed
    (``aarch64`` is no version 6.4).
    """
    low = name.lower()
    py = _KEY_PYTHON.search(low)
    python = f"3.{py[1]}{py[2]}" if py else None
    rest = _KEY_PYTHON.sub("-", low)
    os_name = "linux"
    # The OS first: a macOS or Windows arm64 build is macOS or Windows ("aarch64" is Linux's).
    if _MACOS.search(rest):
        os_name = "macos"
    elif _WINDOWS.search(rest):
        os_name = "windows"
    elif _AARCH64.search(rest):
        os_name = "aarch64"
    rest = _AARCH64.sub("-", rest)
    package = "libtorch" if _LIBTORCH.search(rest) else "wheel"
    abi = "abi3" if _ABI3.search(rest) else None
    cxx11 = _CXX11.search(rest)
    if cxx11 and abi is None:
        abi = "pre-cxx11" if cxx11[1] else "cxx11"
    linkage, config = _LINKAGE.search(rest), _CONFIG.search(rest)
    build = "-".join(m[0] for m in (linkage, config) if m) or None
    rest = _ABI3.sub("-", _CXX11.sub("-", rest))
    kind: VariantKind = "other"
    if _ROCM_WORD.search(rest):
        kind = "rocm"
    elif _XPU_WORD.search(rest):
        kind = "xpu"
    elif _CUDA_WORD.search(rest):
        kind = "cuda"
    elif _CPU_WORD.search(rest):
        kind = "cpu"
    version = None
    if kind in ("cuda", "rocm"):
        number = _NAMED_VERSION.search(rest) or _BARE_VERSION.search(rest)
        if number:
            version = f"{int(number[1])}.{number[2]}"
    return VariantKey(name, kind, version, os_name, python, package, abi, build)


def _wheel_os(platform_tags: Iterable[str]) -> str:
    """The ``os`` of :class:`VariantKey` for a wheel's platform tags (``any``: pure)."""
    tags = sorted(platform_tags)
    if not tags or all(t == "any" for t in tags):
        return "any"
    text = " ".join(tags).lower()
    if "macosx" in text:
        return "macos"
    if text.startswith("win") or " win" in text:
        return "windows"
    return "aarch64" if _AARCH64.search(text) else "linux"


def wheel_key(
    python_tags: Iterable[str],
    abi_tags: Iterable[str],
    platform_tags: Iterable[str],
    local: str | None,
) -> VariantKey:
    """What a wheel's own tags say, in the words of :func:`variant_key`: the platform from its
    platform tags, the Python from its ABI tag where that is CPython's (``cp313t`` is the
    free-threaded 3.13, never the GIL ``cp313``), ``abi3`` as such, and the accelerator from
    its local version label (``+cu128``)."""
    abis = sorted(abi_tags)
    pythons = sorted(python_tags)
    abi = "abi3" if "abi3" in abis else None
    python = None
    for tag in [*abis, *pythons] if abi is None else []:
        m = re.fullmatch(r"cp(\d)(\d{1,2})(t?)", tag)
        if m:
            python = f"{m[1]}.{m[2]}{m[3]}"
            break
    accel = variant_key(local) if local else None
    kind: VariantKind = accel.kind if accel is not None else "other"
    version = accel.version if accel is not None else None
    name = "-".join(x for x in (local, python and f"py{python}", abi) if x) or "wheel"
    return VariantKey(name, kind, version, _wheel_os(platform_tags), python, "wheel", abi)


@dataclass(frozen=True)
class ArtifactNaming:
    """How a workflow names its artifacts: a pattern with ``{variant}`` (and ``{python}``)."""

    pattern: str = DEFAULT_PATTERN
    python: str = DEFAULT_PYTHON

    def __post_init__(self) -> None:
        if self.pattern.count("{variant}") != 1:
            raise InputError(
                f"artifact pattern {self.pattern!r} must contain {{variant}} exactly once"
            )
        leftover = re.sub(r"\{(variant|python)\}", "", self.pattern)
        if "{" in leftover or "}" in leftover:
            raise InputError(
                f"artifact pattern {self.pattern!r} may only use {{variant}} and {{python}}"
            )

    @property
    def _regex(self) -> re.Pattern[str]:
        parts = re.split(r"(\{variant\}|\{python\})", self.pattern)
        out = []
        for part in parts:
            if part == "{variant}":
                out.append(r"(?P<variant>.+)")
            elif part == "{python}":
                out.append(re.escape(self.python))
            else:
                out.append(re.escape(part))
        return re.compile("^" + "".join(out) + "$")

    def artifact(self, variant: str) -> str:
        """The artifact name of a canonical variant."""
        return self.pattern.replace("{python}", self.python).replace("{variant}", variant)

    def split_artifact(self, artifact: str) -> tuple[str | None, str] | None:
        """(python, variant) of an artifact named by the pattern for any Python
        (``manywheel-py3_13t-cuda12_8`` → ``("py3_13t", "cuda12_8")``), or None."""
        regex = []
        for part in re.split(r"(\{variant\}|\{python\})", self.pattern):
            if part == "{variant}":
                regex.append(r"(?P<variant>.+)")
            elif part == "{python}":
                regex.append(r"(?P<python>(?:py|cp)3_?\d{1,2}t?)")
            else:
                regex.append(re.escape(part))
        m = re.fullmatch("".join(regex), artifact)
        if not m:
            return None
        python = m.groupdict().get("python")
        return (canonical_python(python) if python else None), m.group("variant")

    def variant_of(self, artifact: str) -> str | None:
        """The variant an artifact name carries, or None if it does not follow the pattern."""
        m = self._regex.match(artifact)
        return m.group("variant") if m else None

    def variants_in(self, artifact_names: Iterable[str]) -> list[str]:
        """Every variant among ``artifact_names``, sorted, for error messages and reports."""
        found = {self.variant_of(name) for name in artifact_names}
        return sorted(v for v in found if v is not None)

    def resolve(self, text: str, seen_artifacts: Iterable[str] | None = None) -> str:
        """Map user input to a variant; with ``seen_artifacts``, insist that it exists there.

        Raises InputError naming the variants that do exist, so a typo is fixed in one try.
        """
        canonical = canonical_variant(text)
        wanted = canonical if canonical is not None else text.strip()
        if seen_artifacts is None:
            if canonical is None:
                raise InputError(f"unknown variant {text!r}: expected cpu, xpu, cudaX_Y or rocmX_Y")
            return canonical
        seen = self.variants_in(seen_artifacts)
        if wanted in seen:
            return wanted
        shown = ", ".join(seen) if seen else "none"
        raise InputError(
            f"unknown variant {text!r}: no artifact {self.artifact(wanted)!r} in the history; "
            f"variants seen: {shown}"
        )


# Accelerators no variant kind covers, named as they are.
_OTHER_ACCELERATOR = re.compile(r"(?<![a-z])(mps|npu|tpu)(?![a-z])")
# What CI jobs and runners say besides a variant's words (issue 33: the audit read job names
# with regexes of its own): "gpu", runner OS and CPU names.
_GPU_WORD = re.compile(r"(?<![a-z])gpu")
_RUNNER_LINUX = re.compile(r"linux|ubuntu|manylinux|musllinux")
_APPLE_SILICON = re.compile(r"(?<![a-z])m[1-4](?![a-z0-9])")
_RUNNER_MACOS = re.compile(r"osx|apple")
_RUNNER_X86 = re.compile(r"x86_64|x86-64|amd64|x64")
_RUNNER_OTHER_CPU = re.compile(r"ppc64|s390x|i686|i386|x86(?!.64)|armv7|riscv|loongarch")


def other_accelerator(name: str) -> str | None:
    """An accelerator the variant kinds do not cover (``mps``, ``npu``, ``tpu``), or None."""
    m = _OTHER_ACCELERATOR.search(name.lower())
    return m[1] if m else None


@dataclass(frozen=True)
class JobPlatform:
    """What a build job's (or artifact folder's) name says of its platform."""

    accelerator: str | None  # cuda, rocm, xpu, mps, npu, tpu, gpu; None: names none
    os: str | None  # linux, windows, macos; None: names none
    machine: str | None  # x86_64, aarch64, other; None: names none


def job_platform(name: str) -> JobPlatform:
    """Read a job name (``wheels-linux-cuda12.8``, ``macos-14-arm64``, ``b-windows-x64``)
    through :func:`variant_key` first, then the words CI runners use (``ubuntu``, ``osx``,
    ``m2``, ``ppc64le``). Linux named anywhere is the OS (a Linux job may cross-build)."""
    low = name.lower()
    key = variant_key(name)
    accelerator: str | None = key.kind if key.kind in ("cuda", "rocm", "xpu") else None
    if accelerator is None:
        accelerator = other_accelerator(low) or ("gpu" if _GPU_WORD.search(low) else None)
    os_name: str | None = None
    if _RUNNER_LINUX.search(low):
        os_name = "linux"
    elif key.os in ("windows", "macos"):
        os_name = key.os
    elif _RUNNER_MACOS.search(low) or _APPLE_SILICON.search(low):
        os_name = "macos"
    machine: str | None = None
    if _RUNNER_X86.search(low):
        machine = "x86_64"
    elif _AARCH64.search(low) or _APPLE_SILICON.search(low):
        machine = "aarch64"
    elif _RUNNER_OTHER_CPU.search(low):
        machine = "other"
    return JobPlatform(accelerator, os_name, machine)


# A toolkit and its version in a file name: cuda118, cu128, rocm64, rocm7.1, hip6, xpu2025.
_TOOLKIT_IN_NAME = re.compile(r"(cuda|cu|rocm|hip|xpu)[0-9]+(?:\.[0-9]+)*(?=[._-]|$)", re.I)


def without_toolkit_versions(name: str) -> str:
    """``name`` with each toolkit's version blanked (``libbnb_cuda118.so`` →
    ``libbnb_cuda#.so``): equal for builds of one library for different toolkit versions."""
    return _TOOLKIT_IN_NAME.sub(lambda m: m.group(1).lower() + "#", name)
