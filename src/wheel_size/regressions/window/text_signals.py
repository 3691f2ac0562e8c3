"""What a commit's words say about size: platforms, toolkit versions, GPU architectures,
libraries, size words and the kind of change (big or small). Verbs are not read: "remove"
and "support" say nothing reliable about the direction of a size change (issue 18).

Release engineers read titles such as "Stop bundling cuSPARSELt in CUDA 12.x wheels" or
"[ROCm] Add gfx950 to the ROCm 7.0 arch list" and know at once which variants can move.
These are the same readings, from regular expressions over the title,
the body and the changed lines of a patch, so they are deterministic and cheap.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

__all__ = [
    "LIBRARIES",
    "Mentions",
    "PatchTerms",
    "TextSignals",
    "arch_min_cuda",
    "arch_min_rocm",
    "library_of",
    "mentions",
    "patch_terms",
    "read_text",
]

Magnitude = Literal["large", "small"]


@dataclass(frozen=True)
class Library:
    name: str  # canonical, lower case
    label: str  # how people write it
    platform: str  # cuda, rocm, xpu, gpu (cuda and rocm), all, aarch64
    pattern: re.Pattern[str]
    bundled: bool  # shipped as its own shared object or data in some wheels (tens of MB)


def _lib(name: str, label: str, platform: str, regex: str, bundled: bool) -> Library:
    return Library(name, label, platform, re.compile(regex, re.I), bundled)


#: Libraries whose names matter for size, with the platform they belong to.
LIBRARIES: tuple[Library, ...] = (
    _lib("cusparselt", "cuSPARSELt", "cuda", r"cusparse[_-]?lt", True),
    _lib("cudss", "cuDSS", "cuda", r"\bcudss", True),
    _lib("nccl", "NCCL", "cuda", r"(?<!r)nccl(?!_?ut)", True),
    _lib("cudnn", "cuDNN", "cuda", r"cudnn(?![_ -]?frontend)", True),
    _lib("cudnn-frontend", "cudnn-frontend", "cuda", r"cudnn[_ -]?frontend", False),
    _lib("cublas", "cuBLAS", "cuda", r"cublas(lt)?", True),
    _lib("cufft", "cuFFT", "cuda", r"\bcufft", True),
    _lib("curand", "cuRAND", "cuda", r"\bcurand", True),
    _lib("cusolver", "cuSOLVER", "cuda", r"\bcusolver", True),
    _lib("cusparse", "cuSPARSE", "cuda", r"\bcusparse(?![_-]?lt)", True),
    _lib("cupti", "CUPTI", "cuda", r"\bcupti", True),
    _lib("nvrtc", "NVRTC", "cuda", r"\bnvrtc", True),
    _lib("nvjitlink", "nvJitLink", "cuda", r"nvjitlink", True),
    _lib("nvshmem", "NVSHMEM", "cuda", r"nvshmem", True),
    _lib("cufile", "cuFile", "cuda", r"\bcufile", True),
    _lib("cutlass", "CUTLASS", "cuda", r"cutlass", False),
    _lib(
        "flash-attention",
        "FlashAttention",
        "cuda",
        r"flash[_ -]?attn|flash[_ -]?attention|\bfa[234]\b",
        False,
    ),
    _lib("rccl", "RCCL", "rocm", r"\brccl", True),
    _lib("miopen", "MIOpen", "rocm", r"miopen", True),
    _lib("hipblaslt", "hipBLASLt", "rocm", r"hipblas[_-]?lt", True),
    _lib("hipsparselt", "hipSPARSELt", "rocm", r"hipsparse[_-]?lt", True),
    _lib("rocblas", "rocBLAS", "rocm", r"rocblas", True),
    _lib("aotriton", "AOTriton", "rocm", r"aotriton", True),
    _lib("composable-kernel", "composable_kernel", "rocm", r"composable[_ -]?kernel|\bck\b", False),
    _lib("rocsolver", "rocSOLVER", "rocm", r"rocsolver|hipsolver", True),
    _lib("hipfft", "hipFFT", "rocm", r"hipfft|rocfft", True),
    _lib("roctracer", "roctracer", "rocm", r"roctracer|rocprof", True),
    _lib("magma", "MAGMA", "gpu", r"\bmagma", True),
    _lib("sycl", "SYCL", "xpu", r"\bsycl", True),
    _lib("torch-xpu-ops", "torch-xpu-ops", "xpu", r"xpu[_-]ops", False),
    _lib("oneccl", "oneCCL", "xpu", r"oneccl|\bxccl|\blibccl\b", True),
    _lib("fbgemm", "FBGEMM", "all", r"fbgemm", False),
    _lib("mkl", "MKL", "all", r"\bmkl(?!dnn)|onemkl", True),
    _lib("onednn", "oneDNN", "all", r"onednn|mkldnn|\bideep|\bdnnl", False),
    _lib("openblas", "OpenBLAS", "all", r"openblas", True),
    _lib("gomp", "libgomp", "all", r"libgomp|\bgomp\b|openmp", True),
    _lib("kleidiai", "KleidiAI", "aarch64", r"kleidi", False),
    _lib("xnnpack", "XNNPACK", "all", r"xnnpack", False),
    _lib("triton", "Triton", "python", r"\btriton\b", False),
)

# Marketing names that stand for architectures in titles.
_ARCH_NAMES: tuple[tuple[re.Pattern[str], tuple[str, ...]], ...] = (
    (
        re.compile(r"\bblackwell\b|\bnvfp4\b|\bmxfp4\b|\bfp4\b|\bb200\b|\bgb200\b", re.I),
        ("sm_100",),
    ),
    (re.compile(r"\brtx\s*50\d0\b", re.I), ("sm_120",)),
    (re.compile(r"\bhopper\b|\bh100\b|\bh200\b", re.I), ("sm_90",)),
    (re.compile(r"\bampere\b|\ba100\b", re.I), ("sm_80",)),
    (re.compile(r"\bvolta\b|\bv100\b", re.I), ("sm_70",)),
    (re.compile(r"\bmaxwell\b", re.I), ("sm_50",)),
    (re.compile(r"\bpascal\b", re.I), ("sm_60",)),
    (re.compile(r"\bmi300x?\b|\bmi325x?\b", re.I), ("gfx942",)),
    (re.compile(r"\bmi35[05]x?\b", re.I), ("gfx950",)),
    (re.compile(r"\bmi2[05]0x?\b", re.I), ("gfx90a",)),
    (re.compile(r"\bnavi\s*3\d\b|\brdna\s*3\b", re.I), ("gfx1100",)),
    (re.compile(r"\bnavi\s*4\d\b|\brdna\s*4\b", re.I), ("gfx1201",)),
)

#: The first CUDA toolkit that compiles for an architecture; 13.0 dropped everything older
#: than sm_75. So a commit about Blackwell cannot move a CUDA 12.6 wheel.
_ARCH_CUDA: dict[int, tuple[str, str | None]] = {
    50: ("11.0", "12.9"),
    52: ("11.0", "12.9"),
    60: ("11.0", "12.9"),
    61: ("11.0", "12.9"),
    70: ("11.0", "12.9"),
    100: ("12.8", None),
    101: ("12.8", "12.9"),
    103: ("12.9", None),
    110: ("13.0", None),
    120: ("12.8", None),
    121: ("12.9", None),
}

_TAG = re.compile(r"\[([^\]]{1,40})\]")
_PLATFORM_WORDS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("rocm", re.compile(r"\brocm\d*|\bhip(ify)?\b|\bamd\b|\bmi\d{3}x?\b", re.I)),
    ("cuda", re.compile(r"\bcuda\d*|\bnvidia\b|\bnvcc\b|\bcu1\d\d\b", re.I)),
    ("xpu", re.compile(r"\bxpu\b|\bintel gpu\b|\bsycl\b", re.I)),
    ("macos", re.compile(r"\bmps\b|\bmacos\b|\bmetal\b|\bdarwin\b|\bapple\b", re.I)),
    ("windows", re.compile(r"\bwin(dows|32|64)?\b|\bmsvc\b", re.I)),
    ("aarch64", re.compile(r"\baarch64\b|\barm64\b|\bneoverse\b|\bgrace\b|\bsve\d*\b", re.I)),
)
_NO_SHIP_TAGS = re.compile(
    r"^(ci|docs?|test(s|ing)?|lint(runner)?|ez|easy|codemod|typing|mypy|release notes?"
    r"|.*hash update|benchmarks?|skip ci)$",
    re.I,
)

_CUDA_LIST = re.compile(
    r"\b(?:cuda|cu)[\s_-]*(?P<first>\d{2}(?:[._]\d|\.x|\b))(?P<rest>(?:\s*(?:/|,|&|and|or)\s*"
    r"(?:cuda\s*)?\d{2}(?:[._]\d|\.x))*)",
    re.I,
)
_CU_COMPACT = re.compile(r"\bcu(1[1-3])(\d)\b", re.I)
_BARE_CUDA = re.compile(
    r"(?<![\d.\w])(?<!gcc )(?<!gcc-)(?<!clang )(?<!python )(?<!numpy )(?<!ubuntu )"
    r"(1[1-3])\.(\d)(?:\.\d+)?(?![\d.]*\d*\s*(?:ms|%|mb|gb|kb))",
    re.I,
)
_ROCM_LIST = re.compile(
    r"\brocm[\s_-]*(?P<first>\d(?:[._]\d)?)(?P<rest>(?:\s*(?:/|,|&|and|or)\s*(?:rocm\s*)?\d[._]\d)*)",
    re.I,
)
_PYTHON = re.compile(r"\b(?:python|py|cp)[\s_-]*3[._]?(1\d)t?\b|\b3\.(1[0-9])t\b", re.I)
_SM = re.compile(r"\b(?:sm|compute)[_ ]?(\d{2,3})[af]?\b", re.I)
_GFX = re.compile(r"\bgfx(\d{2,4}[a-z]?)\b", re.I)
_ARCH_LINE = re.compile(r"arch", re.I)
_ARCH_NUMBER = re.compile(r"(?<![\d.])(\d{1,2})\.(\d)(?:\+ptx|a|f)?(?![\d.])", re.I)

_REVERT = re.compile(r'^\s*(revert|back out)\s*"?(?P<inner>.*?)"?\s*$', re.I)
_SIZE_WORDS = re.compile(
    r"\b(binary|wheel|package|library|lib|artifact|install) sizes?\b|\bsize (reduction|regression)"
    r"|\bsmaller (wheel|binar)|\bwheel bloat|\b(unused|dead) code\b",
    re.I,
)
_LARGE_WORDS = re.compile(
    r"bundl\w*|dependenc\w*|\bdepend(s)? on\b|arch(itecture)?s?[ _-]?list"
    r"|torch_cuda_arch_list|pytorch_rocm_arch|static(ally)? link|link\w* statically"
    r"|debug info|\b-g\d?\b|symbols|toolkit|\bimage\b|kernel database|\bkdb\b|\baot\b"
    r"|compress\w*|fatbins?\b",
    re.I,
)
# "Bump AOTriton to 0.11.1b", "Update the CK submodule", "Upgrade cuDNN to 9.10" -- not
# "Update CMake to find X".
_VERSION_CHANGE = re.compile(
    r"\b(bump|updat\w*|upgrad\w*)\b(?=.{0,60}?(\bto\s+v?\d|submodule|\bpin\b|version|\d+\.\d+))",
    re.I,
)
#: Flags that change the code generated (warnings do not).
CODEGEN_FLAGS = re.compile(
    r"(?<![\w-])-O[0-3sz]\b|-flto|-ffunction-sections|-fdata-sections|--gc-sections|(?<![\w-])-g[0-3]?\b"
    r"|-Xfatbin|compress-all|compress-mode|offload-compress|-fvisibility|--use_fast_math"
    r"|-ffast-math|-march=",
    re.I,
)
_SMALL_WORDS = re.compile(
    r"-o[0-3s]\b|compile[_ ]options|\bflags?\b|instantiat\w*|\btemplates?\b|\bkernels?\b"
    r"|cutlass|\bops?\b|operator|gemm|vectori[sz]\w*",
    re.I,
)


@dataclass(frozen=True)
class Mentions:
    """Platforms, versions, architectures, libraries and Pythons named in some text."""

    platforms: frozenset[str] = frozenset()
    cuda_versions: frozenset[str] = frozenset()  # "12.8", or "12.*" for "CUDA 12.x"
    rocm_versions: frozenset[str] = frozenset()  # "7.0", or "7.*"
    archs: frozenset[str] = frozenset()  # "sm_90", "gfx942"
    libraries: frozenset[str] = frozenset()
    pythons: frozenset[str] = frozenset()  # "3.14"
    no_ship_tag: bool = False  # "[CI]", "[Docs]", "[test]"
    tagged: frozenset[str] = frozenset()  # platforms named in "[ROCm]"-style title tags

    def __or__(self, other: Mentions) -> Mentions:
        return Mentions(
            self.platforms | other.platforms,
            self.cuda_versions | other.cuda_versions,
            self.rocm_versions | other.rocm_versions,
            self.archs | other.archs,
            self.libraries | other.libraries,
            self.pythons | other.pythons,
            self.no_ship_tag or other.no_ship_tag,
            self.tagged | other.tagged,
        )

    @property
    def empty(self) -> bool:
        return not (
            self.platforms or self.cuda_versions or self.rocm_versions or self.archs
        ) and not any(library_platform(lib) not in ("all", "python") for lib in self.libraries)


def _version(major: str, minor: str | None) -> str:
    return f"{major}.{minor}" if minor is not None else f"{major}.*"


def _split_versions(first: str, rest: str) -> list[str]:
    out = []
    for token in [first, *re.findall(r"\d{1,2}(?:[._]\d|\.x)?", rest)]:
        m = re.match(r"(\d{1,2})(?:[._](\d))?", token)
        if m:
            out.append(_version(m[1], m[2]))
    return out


def library_of(name: str) -> str | None:
    """The canonical library a file name or word refers to (``libcusparseLt.so.0``)."""
    for lib in LIBRARIES:
        if lib.pattern.search(name):
            return lib.name
    return None


def library_platform(name: str) -> str:
    return next((lib.platform for lib in LIBRARIES if lib.name == name), "all")


def library_label(name: str) -> str:
    return next((lib.label for lib in LIBRARIES if lib.name == name), name)


def is_bundled(name: str) -> bool:
    return next((lib.bundled for lib in LIBRARIES if lib.name == name), False)


#: The first ROCm release that builds an architecture (gfx950, MI350/MI355, came with 7.0).
_ARCH_ROCM: dict[str, str] = {"gfx950": "7.0"}


def arch_min_rocm(arch: str) -> str | None:
    return _ARCH_ROCM.get(arch)


def arch_min_cuda(arch: str) -> tuple[str, str | None] | None:
    """The CUDA versions (first, last or None) that build an ``sm_XX``; None: any."""
    m = re.match(r"sm_(\d+)", arch)
    return _ARCH_CUDA.get(int(m[1])) if m else None


def mentions(text: str) -> Mentions:
    """Everything :class:`Mentions` can find in ``text``."""
    platforms: set[str] = set()
    cuda: set[str] = set()
    rocm: set[str] = set()
    archs: set[str] = set()
    pythons: set[str] = set()
    no_ship = False
    tagged: set[str] = set()
    for tag in _TAG.findall(text[:200]):
        for part in re.split(r"[,/]", tag):
            if _NO_SHIP_TAGS.match(part.strip()):
                no_ship = True
            for name, pattern in _PLATFORM_WORDS:
                if pattern.search(part):
                    tagged.add(name)
    for name, pattern in _PLATFORM_WORDS:
        if pattern.search(text):
            platforms.add(name)
    for m in _CUDA_LIST.finditer(text):
        cuda.update(_split_versions(m["first"], m["rest"]))
    for m in _CU_COMPACT.finditer(text):
        cuda.add(f"{m[1]}.{m[2]}")
    for m in _BARE_CUDA.finditer(text):
        cuda.add(f"{m[1]}.{m[2]}")
    for m in re.finditer(r"(?<![\d.])(1[1-3])\.(\d)\+", text):
        cuda.discard(f"{m[1]}.{m[2]}")
        cuda.add(f">={m[1]}.{m[2]}")
    for m in _ROCM_LIST.finditer(text):
        rocm.update(_split_versions(m["first"], m["rest"]))
    cuda = {v for v in cuda if re.match(r"(>=)?1[0-3]\.", v)}
    rocm = {v for v in rocm if re.match(r"[5-9]\.", v)}
    for m in _SM.finditer(text):
        archs.add(f"sm_{m[1]}")
    for m in _GFX.finditer(text):
        archs.add(f"gfx{m[1].lower()}")
    for pattern, names in _ARCH_NAMES:
        if pattern.search(text):
            archs.update(names)
    for m in _PYTHON.finditer(text):
        pythons.add(f"3.{m[1] or m[2]}")
    libraries = {lib.name for lib in LIBRARIES if lib.pattern.search(text)}
    if cuda or any(a.startswith("sm_") for a in archs):
        platforms.add("cuda")
    if rocm or any(a.startswith("gfx") for a in archs):
        platforms.add("rocm")
    return Mentions(
        frozenset(platforms),
        frozenset(cuda),
        frozenset(rocm),
        frozenset(archs),
        frozenset(libraries),
        frozenset(pythons),
        no_ship,
        frozenset(tagged),
    )


@dataclass(frozen=True)
class PatchTerms:
    """What the changed lines of one file's patch name (context lines are ignored).

    ``scope`` holds the toolkit versions the changed lines sit under (a ``12.8)`` case label
    or an ``if [[ $CUDA_VERSION == 13* ]]`` just above them), as ``cuda:12.8``, ``rocm:7.0``,
    ``python:3.14``: a build script change scoped that way only reaches those variants.
    """

    added: frozenset[str] = frozenset()
    removed: frozenset[str] = frozenset()
    scope: frozenset[str] = frozenset()
    archs_added: frozenset[str] = frozenset()
    archs_removed: frozenset[str] = frozenset()
    # Identifiers on the changed lines (at most _IDENTIFIERS), matched against the kernel
    # template families that moved (rank._family_points).
    identifiers: frozenset[str] = frozenset()
    # The changed lines name compiler warning options (-Wall, -Werror=…) and no other option
    # and no source or target: a diagnostic setting, which generates no code.
    warnings_only: bool = False


_IDENTIFIER = re.compile(r"\b[A-Za-z_][A-Za-z0-9_]{3,127}\b")
_IDENTIFIERS = 4096

_CONDITION = re.compile(
    r"#\s*ifdef\b|\bcase\b|\bif\b|\belif\b|\bwhen\b|==|>=|\)\s*$|^\s*[\w.*\"'|-]+\)\s*$"
    r"|^\s*[\"'][^\"']+[\"']\s*:\s*[\[({]?\s*$|^\s*(def|function)\s",
    re.I,
)
_KIND_WORD = re.compile(r"(cuda|cu1\d|rocm|hip|python)", re.I)
_AT_LEAST = re.compile(
    r"(?:greater_equal|>=)\s*[\"']?(\d{1,2})[._](\d)|(\d{1,2})\.(\d)\+(?![a-z])", re.I
)
_NAMED = r"(?:[_-]?version)?[\s_=:\"'-]*"
_CUDA_SCOPE = re.compile(
    rf"(?:cuda|cu){_NAMED}(1[1-3])(?:[._]?(\d)|[._]?\*)?(?!\d)"
    r"|(?<![\d.])(1[1-3])(?:[._](\d)|[._]?\*)",
    re.I,
)
_ROCM_SCOPE = re.compile(r"(?<![\d.])([5-9])(?:[._](\d)|[._]?\*)(?![\d])", re.I)
_ROCM_NAMED = re.compile(rf"rocm{_NAMED}([5-9])(?:[._](\d)|[._]?\*)?(?!\d)", re.I)
# "3.13t" is the free-threaded build, a wheel of its own: the "t" stays in the scope.
_PY_SCOPE = re.compile(rf"python{_NAMED}3[._](1\d)(t?)|(?<![\d.])3\.(1\d)(t?)(?![\d.])", re.I)
_EXPLICIT_SCOPE = re.compile(r"cuda|cu1\d|rocm|python", re.I)
# Preprocessor lines compile to nothing themselves; the end of a branch ends its condition
# (after ``#else`` the lines are under its opposite, which a scope cannot say: none).
_DIRECTIVE = re.compile(r"^\s*#\s*(?:if|ifdef|ifndef|elif|else|endif)\b")
_BRANCH_END = re.compile(r"^\s*#\s*(?:endif|else)\b")
# Compiler diagnostics (GCC/Clang -W…, nvcc --Werror / -Xcudafe --diag_suppress, MSVC /W4,
# /wd4996): they make a build fail or pass, never change the code it generates. -Wl, -Wa
# and -Wp pass options to the linker, assembler and preprocessor: those are not warnings.
_WARNING_OPTION = re.compile(
    r"(?<![\w-])(?:-W(?![lap],)[\w=+,.-]*|--Werror[\w=,-]*|--diag[_-]suppress[\w=,-]*|/W[0-4X]\b"
    r"|/wd\d+|-Xcudafe\b)"
)
_OTHER_OPTION = re.compile(r"(?<![\w$<>:])(?:-{1,2}[A-Za-z]|/[A-Z][A-Za-z]*\b(?!/))")
_CODE_CHANGE = re.compile(
    r"\.(?:c|cc|cpp|cxx|cu|cuh|hip|h|hpp)\b|add_library|add_executable|target_sources"
    r"|target_link|_SRCS\b|_SOURCES\b|[A-Z_]+_ARCH|arch_list|gencode|\bdefine\b|-D\w",
    re.I,
)


_PLATFORM_CONDITION = (
    ("cuda", re.compile(r"\bUSE_CUDA\b(?!\s*\)?\s*AND\s+NOT)|CUDA_FOUND", re.I)),
    ("rocm", re.compile(r"\bUSE_ROCM\b|\bHIP_FOUND\b|__HIP_PLATFORM", re.I)),
    ("xpu", re.compile(r"\bUSE_XPU\b|\bSYCL_FOUND\b", re.I)),
)


def _scope_of(line: str, hint: str | None = None, explicit: bool = False) -> set[str]:
    """Toolkit and Python versions a line names, as ``cuda:12.8``, ``rocm:7.*``,
    ``cuda:>=12.9``; bare numbers count only when not ``explicit`` (``hint`` says whose).
    A condition on a platform (``if(USE_ROCM)``) is ``rocm:*``."""
    found: set[str] = set()
    if not explicit and not re.search(r"\bnot\b|!", line, re.I):
        for name, pattern in _PLATFORM_CONDITION:
            if pattern.search(line):
                found.add(f"{name}:*")
    low = line.lower()
    kind = hint
    named = _KIND_WORD.search(line)
    if named:
        word = named[1].lower()
        kind = "rocm" if word in ("rocm", "hip") else "python" if word == "python" else "cuda"
    at_least = _AT_LEAST.search(line)
    if at_least and kind in ("cuda", "rocm"):
        found.add(f"{kind}:>={at_least[1] or at_least[3]}.{at_least[2] or at_least[4]}")
        return found
    for m in _ROCM_NAMED.finditer(line):
        found.add(f"rocm:{_version(m[1], m[2])}")
    for m in _PY_SCOPE.finditer(line):
        if m[1] or not explicit:
            found.add(f"python:3.{m[1] or m[3]}{m[2] or m[4] or ''}")
    if "rocm" in low or "hip" in low or (kind == "rocm" and not explicit):
        if not explicit:
            for m in _ROCM_SCOPE.finditer(line):
                found.add(f"rocm:{_version(m[1], m[2])}")
        return found
    for m in _CUDA_SCOPE.finditer(line):
        if m[1]:
            found.add(f"cuda:{_version(m[1], m[2])}")
        elif m[3] and not explicit:
            found.add(f"cuda:{_version(m[3], m[4])}")
    return found


def _terms(line: str) -> set[str]:
    found = {lib.name for lib in LIBRARIES if lib.pattern.search(line)}
    found.update(f"sm_{m[1]}" for m in _SM.finditer(line))
    found.update(f"gfx{m[1].lower()}" for m in _GFX.finditer(line))
    found.update(m.group(0).lower() for m in CODEGEN_FLAGS.finditer(line))
    for word in ("instantiat", "template", "compile_options", "arch_list", "gencode"):
        if word in line.lower():
            found.add(word)
    return found


def _line_archs(line: str) -> set[str]:
    archs = {f"sm_{m[1]}" for m in _SM.finditer(line)} | {
        f"gfx{m[1].lower()}" for m in _GFX.finditer(line)
    }
    if _ARCH_LINE.search(line):
        archs.update(f"sm_{m[1]}{m[2]}" for m in _ARCH_NUMBER.finditer(line))
    return archs


def patch_terms(patch: str) -> PatchTerms:
    """Read the ``+``/``-`` lines of a unified diff hunk list (GitHub's ``patch`` field)."""
    added: set[str] = set()
    removed: set[str] = set()
    scope: set[str] = set()
    a_archs: set[str] = set()
    r_archs: set[str] = set()
    # The condition the next added and the next removed lines are under: a context line's
    # condition holds for both, an added one for added lines (a new guard), a removed one
    # for removed lines (they were under it). A removed guard around kept lines widens
    # them to the other platforms, which a scope cannot say: they get none.
    under: dict[str, set[str]] = {"+": set(), "-": set()}
    identifiers: set[str] = set()
    hint: str | None = None  # whose versions a `case` statement switches on
    warnings = other = False  # warning options, and anything else an option could do
    for raw in patch.splitlines():
        if raw.startswith(("+++", "---")):
            continue
        is_header = raw.startswith("@@")
        body = raw.split("@@", 2)[-1] if is_header else raw[1:] if raw[:1] in "+- " else raw
        changed = not is_header and raw[:1] in "+-"
        if changed and body.strip() and not body.lstrip().startswith("#"):
            rest = _WARNING_OPTION.sub(" ", body)
            warnings |= rest != body
            other |= bool(_OTHER_OPTION.search(rest) or _CODE_CHANGE.search(rest))
        if _BRANCH_END.search(body):
            for side in (raw[:1],) if changed else ("+", "-"):
                under[side] = set()
            continue
        if not changed:
            if _CONDITION.search(body):
                if re.search(r"\bcase\b|\bif\b|\bfunction\b|\bdef\b", body):
                    named = _KIND_WORD.search(body)
                    hint = None
                    if named:
                        word = named[1].lower()
                        hint = "rocm" if word in ("rocm", "hip") else "cuda"
                found = _scope_of(body, hint)
                if found or re.search(r"\bcase\b|\bif\b|#\s*ifdef\b", body) or is_header:
                    under = {"+": found, "-": set(found)}
            elif is_header:
                under = {"+": set(), "-": set()}
            continue
        side = raw[:1]
        # A changed condition (an added "#if defined(USE_ROCM)", a new "3.13t)" case label)
        # scopes the changed lines after it on its side, as a context line would.
        if _CONDITION.search(body) and not _ARCH_LINE.search(body):
            condition = _scope_of(body, hint)
            if condition or _DIRECTIVE.search(body):
                under[side] = condition
        # A changed line names its own scope only explicitly ("cuda12.8"): bare numbers
        # in it are more likely an arch list ("8.0;9.0;12.0") than a toolkit version. A
        # guard is no code: what it scopes is the lines under it.
        own = _scope_of(body, explicit=True) if _EXPLICIT_SCOPE.search(body) else set()
        if _ARCH_LINE.search(body):
            own = set()
        if not _DIRECTIVE.search(body):
            scope.update(own or under[side])
        terms, archs = _terms(body), _line_archs(body)
        if len(identifiers) < _IDENTIFIERS:
            identifiers.update(_IDENTIFIER.findall(body)[: _IDENTIFIERS - len(identifiers)])
        if raw.startswith("+"):
            added |= terms
            a_archs |= archs
        else:
            removed |= terms
            r_archs |= archs
    # An arch listed on both sides (a reordered list) did not change.
    return PatchTerms(
        frozenset(added),
        frozenset(removed),
        frozenset(scope),
        frozenset(a_archs - r_archs),
        frozenset(r_archs - a_archs),
        frozenset(identifiers),
        warnings and not other,
    )


@dataclass(frozen=True)
class TextSignals:
    """The readings of one commit message."""

    title: Mentions
    body: Mentions
    size_words: bool
    magnitude: Magnitude | None
    revert: bool = False
    version_change: bool = False  # "Bump X to 1.2", "Update the Y submodule"
    reasons: tuple[str, ...] = field(default=())


def read_text(title: str, body: str = "") -> TextSignals:
    """Read a commit's title (strong) and body (weak)."""
    text = f"{title}\n{body[:2000]}"
    t = mentions(title)
    # Kernels for one architecture are a few MB; a whole architecture's cubins are tens.
    magnitude: Magnitude | None = None
    if _LARGE_WORDS.search(title):
        magnitude = "large"
    elif _SMALL_WORDS.search(title):
        magnitude = "small"
    elif t.archs:
        magnitude = "large"
    bundled = any(is_bundled(lib) for lib in t.libraries)
    if bundled and _VERSION_CHANGE.search(title):
        magnitude = "large"
    return TextSignals(
        title=t,
        body=mentions(body[:2000]),
        size_words=bool(_SIZE_WORDS.search(text)),
        magnitude=magnitude,
        revert=bool(_REVERT.match(title)),
        version_change=bool(_VERSION_CHANGE.search(title)),
    )
