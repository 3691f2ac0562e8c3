"""Kernels per code object against the compilers' own code objects (the fixture manifest,
read with pyelftools from ``nvcc -keep`` / ``clang -save-temps``) and against c++filt."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from kernelfx import library, manifest
from wheel_size.kernels.demangle import available, demangle, demangle_many, llvm_cxxfilt
from wheel_size.kernels.inventory import Inventory
from wheel_size.kernels.library import iter_code_objects
from wheel_size.rocm.elf_file import ElfImage
from wheel_size.rocm.elf_tables import iter_symbols


def _listed(name: str) -> dict[str, dict[str, list[int]]]:
    """arch -> mangled name -> [bytes, copies] as wheel_size lists them (PTX: names only)."""
    problems: list[str] = []
    table: dict[str, dict[str, list[int]]] = {}
    with library(name).open("rb") as stream:
        for code in iter_code_objects(stream, name, problems):
            assert not code.functions.problems
            assert code.functions.attributed + code.functions.unattributed == code.functions.size
            slot = table.setdefault(code.arch, {})
            for function in code.functions.functions:
                size = 0 if code.arch.startswith("compute_") else function.size
                entry = slot.setdefault(function.name, [0, 0])
                entry[0] += size
                entry[1] += 1
    assert problems == []
    return {arch: functions for arch, functions in table.items() if functions}


@pytest.mark.parametrize(
    "name",
    ["libkern_v1.so", "libkern_v2.so", "libkern_v2_lz4.so", "libhkern_v1.so", "libhkern_v2.so"],
)
def test_functions_are_the_compilers_code_objects(name: str) -> None:
    want = manifest()["libraries"].get(name, {}).get("functions")
    got = _listed(name)
    assert want is not None
    assert got == {arch: functions for arch, functions in want.items() if functions}


def test_lz4_and_zstd_entries_list_the_same_kernels() -> None:
    assert _listed("libkern_v2.so") == _listed("libkern_v2_lz4.so")


def test_helper_inside_a_kernel_is_not_counted_twice() -> None:
    listed = _listed("libkern_v1.so")
    for arch, functions in listed.items():
        assert not any(n.startswith("$") for n in functions), arch
        if arch.startswith("sm_"):
            assert "_Z11uses_helperPf" in functions  # its helper's bytes are inside it


def test_demangled_names_equal_cxxfilt() -> None:
    if shutil.which("c++filt") is None:
        pytest.skip("c++filt (binutils) is not installed")
    assert available(), "libstdc++ could not be loaded"
    names: set[str] = set()
    for name in manifest()["libraries"]:
        path = library(name)
        with path.open("rb") as stream:
            elf = ElfImage(stream, name)
            names.update(s.name for s in iter_symbols(elf) if s.name)
            for code in iter_code_objects(stream, name, [], elf):
                names.update(f.name for f in code.functions.functions)
    names = sorted(names)  # type: ignore[assignment]
    assert len(names) > 100
    reference = subprocess.run(
        ["c++filt"], input="\n".join(names) + "\n", capture_output=True, text=True, check=True
    ).stdout.splitlines()
    assert [demangle(n).text for n in names] == reference


# A CUTLASS kernel of torch 2.9.0's libtorch_cuda.so that GCC 12's libiberty (libstdc++,
# binutils c++filt) rejects and LLVM's demangler reads.
CUTLASS = (
    "_ZN7cutlass13device_kernelINS_4gemm6kernel13GemmUniversalIN4cute5tupleIJiiiEEENS1_10coll"
    "ective13CollectiveMmaINS1_34MainloopSm90TmaGmmaWarpSpecializedILi4ENS5_IJNS4_1CILi2EEENS"
    "A_ILi1EEESC_EEENS1_35KernelTmaWarpSpecializedCooperativeEEENS5_IJNSA_ILi128EEENSA_ILi256"
    "EEENSA_ILi64EEEEEENS_10bfloat16_tENS5_IJlSC_lEEESK_SL_NS4_8TiledMMAINS4_8MMA_AtomIJNS4_4"
    "SM904GMMA28MMA_64x256x16_F32BF16BF16_SSILNSP_5MajorE0ELSR_0ELNSP_7ScaleInE1ELSS_1EEEEEEN"
    "S4_6LayoutISD_NS5_IJSC_NSA_ILi0EEESW_EEEEENS5_IJNS4_10UnderscoreESZ_SZ_EEEEENS4_13SM90_T"
    "MA_LOADENS4_14ComposedLayoutINS4_7SwizzleILi3ELi4ELi3EEENS4_18smem_ptr_flag_bitsILi16EEE"
    "NSV_INS5_IJNSA_ILi8EEESI_EEENS5_IJSI_SC_EEEEEEEvNS4_8identityENS4_23SM90_TMA_LOAD_MULTIC"
    "ASTES1C_vS1D_EENS_8epilogue10collective18CollectiveEpilogueINS1G_22Sm90TmaWarpSpecialize"
    "dILi4ELi2ELi16ELb1ELb0EEEJSJ_NS5_IJSG_NSA_ILi32EEEEEESK_SL_SK_SL_NS1G_6fusion15FusionCal"
    "lbacksIS1K_NS1N_17LinearCombinationISK_fSK_fLNS_15FloatRoundStyleE2EEESJ_S1M_JEEES12_NS1"
    "3_INS14_ILi2ELi4ELi3EEES17_NSV_INS5_IJS18_S1L_EEENS5_IJS1L_SC_EEEEEEENS4_17SM75_U32x4_LD"
    "SM_NENS4_14SM90_TMA_STOREES1X_NS4_17SM90_U32x4_STSM_NENS4_9Copy_AtomIJS20_NS_6half_tEEEE"
    "vEEENS1_29PersistentAsyncInputSchedulerISE_vEEvEEEEvNT_6ParamsE"
)


def test_names_libstdcxx_rejects_go_to_llvm_cxxfilt() -> None:
    tool = llvm_cxxfilt()
    if tool is None:
        pytest.skip("llvm-cxxfilt not installed")
    want = subprocess.run(
        [tool], input=CUTLASS + "\n", capture_output=True, text=True, check=True
    ).stdout.strip()
    assert want.startswith("void cutlass::device_kernel<")
    shown = demangle_many([CUTLASS])[CUTLASS]
    assert shown.ok
    if not demangle(CUTLASS).ok:  # libstdc++ rejects it: the answer is LLVM's
        assert shown.text == want
    inventory = Inventory()
    inventory.add("sm_90", CUTLASS, 100)
    inventory.add("sm_80", CUTLASS, 50)
    assert inventory.resolve() == 0
    assert {name for _arch, name in inventory.items} == {shown.text}
    assert {item.family for item in inventory.items.values()} == {"cutlass::device_kernel<…>"}
