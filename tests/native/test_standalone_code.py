"""Standalone code objects (a wheel's ``.cubin`` / ``.hsaco`` members) in the native floor
and the kernel listing: the architecture from the ELF header, the whole file as device
code, no host tables; a header that names no architecture is one problem, not a guess."""

from __future__ import annotations

from pathlib import Path

import pytest

from cubinfx import CUBIN, amdgpu_code_object, cubin, cubins, lying_cubin
from wheel_size.kernels.library import iter_code_objects
from wheel_size.native import read_library_facts
from wheel_size.native.standalone import STANDALONE_SECTION, standalone_code


@pytest.mark.parametrize("name", sorted(cubins()))
def test_a_cubin_is_device_code_of_its_header_s_architecture(name: str) -> None:
    truth = cubins()[name]
    facts = read_library_facts(CUBIN / name, source=name, tables=True)
    assert facts.gpu_problems == [] and facts.readable
    assert facts.gpu_archs == {truth["arch"]}
    ((key, totals),) = facts.gpu.items()
    assert key == ("cuda", STANDALONE_SECTION, truth["arch"], "sass")
    assert (totals.bytes, totals.uncompressed, totals.entries) == (truth["bytes"],) * 2 + (1,)
    # no host tables are read from device code: no glibc, no DT_NEEDED
    assert facts.glibc_required is None and facts.needed == []


def test_an_amdgpu_code_object_reads_its_target(tmp_path: Path) -> None:
    data, target = amdgpu_code_object()
    path = tmp_path / "kernel.hsaco"
    path.write_bytes(data)
    facts = read_library_facts(path, source="kernel.hsaco", tables=True)
    assert facts.gpu_archs == {target}
    assert facts.gpu[("hip", STANDALONE_SECTION, target, "code_object")].bytes == len(data)


def test_a_lying_cubin_header_is_one_problem_and_no_architecture(tmp_path: Path) -> None:
    path = tmp_path / "lies.cubin"
    path.write_bytes(lying_cubin())
    facts = read_library_facts(path, source="w.whl:lies.cubin")
    assert facts.gpu == {} and facts.sections  # its sections still read
    (problem,) = facts.gpu_problems
    assert problem.startswith("w.whl:lies.cubin: cubin header e_flags") and "no SM" in problem


def test_the_kernel_listing_reads_a_cubin_whole(tmp_path: Path) -> None:
    name = "k_sm_90.cubin"
    problems: list[str] = []
    with (CUBIN / name).open("rb") as stream:
        (code,) = iter_code_objects(stream, name, problems)
    assert problems == []
    assert (code.kind, code.arch) == ("cuda", "sm_90")
    assert code.functions.size == len(cubin(name))
    assert {f.name for f in code.functions.functions} == {"_Z3addPfPKfi", "_Z5scalePffi"}


@pytest.mark.parametrize(
    ("abi_version", "flags", "arch"),
    [
        (8, 0x0600670A, "sm_103a"),  # flashinfer-cubin 0.6.12's sm_103a cubins
        (8, 0x06006402, "sm_100"),  # its sm_100f cubins: no mark, read as cuobjdump does
        (8, 0x06005A04, "sm_90"),
        (7, 0x00500A5A, "sm_90a"),  # EF_CUDA_ACCELERATORS_V1 in the old layout
        (7, 0x0050055A, "sm_90"),
    ],
)
def test_an_architecture_specific_cubin_keeps_its_a(
    abi_version: int, flags: int, arch: str
) -> None:
    head = bytearray(cubin("k_sm_90.cubin")[:64])
    head[8] = abi_version
    head[48:52] = flags.to_bytes(4, "little")
    code = standalone_code(bytes(head), "k.cubin")
    assert code is not None and code.arch == arch


def test_nvcc_13_marks_an_a_cubin_in_nv_compat_not_in_its_header() -> None:
    """``nvcc -cubin -arch=sm_100a`` (CUDA 13.0) leaves EF_CUDA_ACCELERATORS clear and sets
    ``.nv.compat`` attribute 9; cuobjdump names the file sm_100a, and so do we once the
    whole file is read. Section headers that do not fit the file leave the header's answer."""
    data = cubin("k_sm_100a.cubin")
    header_only = standalone_code(data[:64], "k.cubin")
    assert header_only is not None and header_only.arch == "sm_100"
    whole = standalone_code(data[:64], "k.cubin", data)
    assert whole is not None and whole.arch == "sm_100a"
    plain = cubin("k_sm_103.cubin")
    assert standalone_code(plain[:64], "k.cubin", plain).arch == "sm_103"  # type: ignore[union-attr]
    cut = data[: len(data) // 2]  # its section headers, at the end, are gone
    assert standalone_code(cut[:64], "k.cubin", cut).arch == "sm_100"  # type: ignore[union-attr]
