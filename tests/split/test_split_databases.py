"""Database routing rules (rocm-split spec, section 1.6)."""

from __future__ import annotations

import pytest

from wheel_size.split.databases import TORCH_FAT, DbMatch, route_database, select_databases

ALL = (*TORCH_FAT, "hipkernelprovider")


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("lib/rocblas/library/TensileLibrary_lazy_gfx942.dat", DbMatch("rocblas", "gfx942")),
        (
            "lib/rocblas/library/Kernels.so-000-gfx90a-xnack+.hsaco",
            DbMatch("rocblas", "gfx90a:xnack+"),
        ),
        ("lib/rocblas/library/TensileLibrary_fallback.dat", DbMatch("rocblas", None)),
        ("lib/rocblas/library/gfx1100/TensileLibrary.dat", DbMatch("rocblas", "gfx1100")),
        (
            "lib/hipblaslt/library/TensileLibrary_HH_gfx950.co",
            DbMatch("hipblaslt", "gfx950"),
        ),
        ("lib/hipblaslt/library/hipblasltTransform.hsaco", DbMatch("hipblaslt", None)),
        (
            "lib/hipblaslt/library/TensileLiteLibrary_lazy_Mapping.dat",
            DbMatch("hipblaslt", None),
        ),
        ("lib/hipsparselt/library/spmm_gfx942.co", DbMatch("hipsparselt", "gfx942")),
        (
            "lib/aotriton.images/amd-gfx11xx/flash/attn_fwd/FONLY__^bf16@16.aks2",
            DbMatch("aotriton", "gfx11"),
        ),
        ("lib/aotriton.images/amd-gfx120x/flash/x.aks2", DbMatch("aotriton", "gfx12_0")),
        ("lib/aotriton.images/amd-gfx942/flash/x.aks2", DbMatch("aotriton", "gfx942")),
        ("lib/aotriton.images/README", DbMatch("aotriton", None)),
        ("share/miopen/db/gfx942130.db.txt", DbMatch("miopen", "gfx942")),
        ("share/miopen/db/gfx1030_36.kdb", DbMatch("miopen", "gfx1030")),
        ("share/miopen/db/gfx90a6e.fdb.txt", DbMatch("miopen", "gfx90a")),
        ("share/miopen/db/gfx908.tn.model", DbMatch("miopen", "gfx908")),
        ("share/miopen/db/gfx803_64.kdb", DbMatch("miopen", "gfx803")),
        ("lib/libMIOpenCKGroupConv_gfx942.so", DbMatch("miopen", "gfx942")),
        (
            "lib/hipdnn_plugins/engines/arch_content/ck/gfx950/kernels.bin",
            DbMatch("hipkernelprovider", "gfx950"),
        ),
    ],
)
def test_routes(path: str, expected: DbMatch) -> None:
    assert route_database(path, ALL) == expected


@pytest.mark.parametrize(
    "path",
    [
        "lib/libtorch_hip.so",
        "share/miopen/readme.txt",
        "lib/rocblas_helpers/gfx942.dat",
        "_C.cpython-313-x86_64-linux-gnu.so",
    ],
)
def test_ordinary_files_are_not_databases(path: str) -> None:
    assert route_database(path, ALL) is None


def test_handler_selection() -> None:
    assert select_databases("torch-fat", None) == TORCH_FAT
    assert select_databases("torch-fat", ["miopen"]) == ("miopen",)
    assert select_databases(None, None) == ()
    # Only the selected handlers claim files.
    assert route_database("share/miopen/db/gfx942130.db.txt", ("rocblas",)) is None
