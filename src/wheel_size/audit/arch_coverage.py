"""Which GPU architectures one native file of a wheel really lacks, against its siblings.

Architecture strings are compared by what they *serve*, not by spelling:

* HIP target-ids follow the AMDGPU compatibility rule (LLVM ``isCompatibleTargetID``, in
  :func:`wheel_size.rocm.target_id.compatible`): a code object with fewer features serves
  the agents a more qualified one names, so ``gfx942`` serves ``gfx942:sramecc+:xnack-``
  (the reverse does not hold: an ``xnack+`` agent cannot run ``xnack-`` code), and a
  generic ISA (``gfx9-4-generic``) serves the processors it covers.
* CUDA SASS for ``sm_XY`` runs on devices of the same major version and a minor at least
  ``Y``; an arch-specific ``sm_XYa`` only on ``X.Y``; a family ``sm_XYf`` on the same major
  version from ``X.Y`` on. PTX (``compute_XY``) is JIT fallback and serves nothing here.

A file with code for exactly one architecture (one HIP processor, one CUDA compute
capability), such as torchao's ``_C_cutlass_90a`` built for sm_90a on purpose, is neither
reported as missing the others' architectures nor counted in what the others should carry.
Neither are *alternatives*: files whose names differ only in a toolkit version
(``libbitsandbytes_cuda118.so`` … ``_cuda132.so``, ``_rocm64.so`` … ``_rocm72.so``) are builds
of one library for different toolkits, of which the package loads one; each covers what its
toolkit can target, and comparing them would report CUDA 11.8 as lacking sm_100.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence

from wheel_size.errors import WheelSizeError
from wheel_size.kernels.archs import arch_key
from wheel_size.rocm.target_id import GENERIC_COVERS, TargetId, compatible, parse_target_id
from wheel_size.variants import without_toolkit_versions

__all__ = ["arch_order", "arch_platform", "missing_archs", "serves", "single_architecture"]

_SM = re.compile(r"^sm_(\d+?)(\d)([af]?)$")


def arch_order(arch: str) -> tuple[bool, tuple[str, int, str]]:
    """Sort key for listing: by kind and number (``sm_75`` before ``sm_100``, ``gfx942``
    before ``gfx1100``), embedded PTX (``compute_XY``) after the code that runs."""
    return arch.startswith("compute_"), arch_key(arch)


def arch_platform(arch: str) -> str:
    """``cuda`` for ``sm_*``/``compute_*``, else ``hip``."""
    return "cuda" if arch.startswith(("sm_", "compute_")) else "hip"


def _target(arch: str) -> TargetId | None:
    try:
        return parse_target_id(arch)
    except WheelSizeError:
        return None


def _hip_serves(code: str, agent: str) -> bool:
    have, want = _target(code), _target(agent)
    if have is None or want is None:
        return code == agent
    if have.processor in GENERIC_COVERS and want.processor in GENERIC_COVERS[have.processor]:
        have = TargetId(want.processor, have.features, have.text)
    return compatible(have, want)


def _cc(arch: str) -> tuple[int, int, str] | None:
    match = _SM.match(arch)
    if match is None:
        return None
    return int(match.group(1)), int(match.group(2)), match.group(3)


def _cuda_serves(code: str, device: str) -> bool:
    have, want = _cc(code), _cc(device)
    if have is None or want is None:
        return code == device
    major, minor, kind = have
    if major != want[0]:
        return False
    if kind == "a":
        return minor == want[1]
    return minor <= want[1] and (want[2] != "a" or minor == want[1] or kind == "")


def serves(code: str, wanted: str) -> bool:
    """True when code built for ``code`` runs where ``wanted``'s code runs."""
    if arch_platform(code) != arch_platform(wanted):
        return False
    if code == wanted:
        return True
    return _hip_serves(code, wanted) if arch_platform(code) == "hip" else _cuda_serves(code, wanted)


def _machine(arch: str) -> str:
    """The hardware an architecture names: a HIP processor, a CUDA compute capability."""
    if arch_platform(arch) == "hip":
        target = _target(arch)
        return target.processor if target is not None else arch
    cc = _cc(arch)
    return f"sm_{cc[0]}{cc[1]}" if cc is not None else arch


def single_architecture(archs: Iterable[str]) -> bool:
    """Code for exactly one piece of hardware (feature variants and ``a``/``f`` forms of it
    count once): a library built for one architecture on purpose."""
    machines = {_machine(a) for a in archs if not a.startswith("compute_")}
    return len(machines) == 1


def _stem(path: str) -> str:
    """A file's name with its toolkit versions blanked: equal for builds of one library for
    different toolkit versions (``libbitsandbytes_cuda118.so`` and ``_cuda130.so``)."""
    return without_toolkit_versions(path.rsplit("/", 1)[-1])


def missing_archs(files: Mapping[str, Sequence[str]]) -> dict[str, list[str]]:
    """For each file of one GPU family (path -> its architectures), the architectures other
    multi-architecture files carry that none of its own code serves, in input order;
    single-architecture files and alternatives (names equal but for a toolkit version) take
    no part."""
    stems: dict[str, int] = {}
    for path in files:
        stems[_stem(path)] = stems.get(_stem(path), 0) + 1
    wide = {
        path: list(archs)
        for path, archs in files.items()
        if not single_architecture(archs) and stems[_stem(path)] == 1
    }
    if len(wide) < 2:
        return {}
    union: list[str] = []
    for archs in wide.values():
        union += [a for a in archs if a not in union and not a.startswith("compute_")]
    out: dict[str, list[str]] = {}
    for path, archs in wide.items():
        lacking = [w for w in union if not any(serves(a, w) for a in archs)]
        if lacking:
            out[path] = lacking
    return out
