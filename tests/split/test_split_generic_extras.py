"""A wheel whose GPU code is built only for LLVM generic ISAs (as jax-rocm7-plugin 0.10.0
ships its gfx94x, gfx103x, gfx11 and gfx12 code): every GPU those ISAs cover gets an extra,
pip resolves it to the wheel holding the generic archive, and rocm-kpack's loader (the
model in tests/rocm/kpack_loader.py) finds the kernel in what that extra installs.

The input is pure (``Root-Is-Purelib: true``, as jax-rocm7-pjrt's WHEEL says): device wheels
must say the same, or their kpacks install into platlib while the library that loads them
sits in purelib (``lib`` and ``lib64`` on Fedora and RHEL).
"""

from __future__ import annotations

import json
import zipfile
from email.parser import BytesHeaderParser
from pathlib import Path
from typing import Any

import jsonschema
import msgpack
import pytest
from elftools.elf.elffile import ELFFile
from test_split_end_to_end import PREFIX, co_indexes, pip_resolve, split_args, unpack

from cli_runner import run_main
from conftest import REPO_ROOT
from elf_sections import section as _section
from fatwheel import DIST_INFO, HIP_DIR, NAME, VERSION, metadata, write_wheel
from wheel_size.rocm.target_id import agent_isas

LIBRARY = "libgeneric19.so"  # gfx9-generic, gfx10-3-generic, gfx11-generic (clang-19)
TAG = "py3-none-manylinux_2_28_x86_64"

# GPU -> the device wheel (bundle key) whose generic archive serves it.
SERVED = {"gfx906": "gfx9_0", "gfx1030": "gfx10_3", "gfx1100": "gfx11", "gfx1151": "gfx11"}
# GPU -> EF_AMDGPU_MACH of the generic code object it must get (LLVM ELF.h, spec 4.1).
MACH = {"gfx906": 0x51, "gfx1030": 0x53, "gfx1100": 0x54, "gfx1151": 0x54}


@pytest.fixture(scope="module")
def split(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    base = tmp_path_factory.mktemp("generic")
    wheel_file = f"Wheel-Version: 1.0\nGenerator: tests\nRoot-Is-Purelib: true\nTag: {TAG}\n"
    files = [
        (f"{NAME}/__init__.py", b"", 0o644),
        (f"{NAME}/lib/{LIBRARY}", (HIP_DIR / LIBRARY).read_bytes(), 0o755),
        (f"{DIST_INFO}/METADATA", metadata(), 0o644),
        (f"{DIST_INFO}/WHEEL", wheel_file.encode(), 0o644),
    ]
    fat = write_wheel(base / f"{NAME}-{VERSION}-{TAG}.whl", files)
    out = base / "out"
    report = base / "report.json"
    result = run_main(split_args(fat, out, "--report-json", str(report)))
    assert result.returncode == 0, result.stderr
    return {"fat": fat, "out": out, "report": json.loads(report.read_text())}


def _device(key: str) -> str:
    return f"{PREFIX}-{key.replace('_', '-')}"


@pytest.mark.parametrize("gpu", sorted(SERVED))
def test_a_gpu_served_by_generic_code_has_an_extra(
    split: dict[str, Any], gpu: str, tmp_path: Path
) -> None:
    chosen = pip_resolve(split["out"], f"torch[{gpu}]", tmp_path)
    assert chosen == {"torch", "rocm-bootstrap", _device(SERVED[gpu])}


def test_the_report_lists_what_each_gpu_downloads(split: dict[str, Any]) -> None:
    schema = json.loads((REPO_ROOT / "docs" / "split-report.schema.json").read_text())
    jsonschema.validate(split["report"], schema)
    rows = {row["target"]: row for row in split["report"]["downloads"]}
    for gpu, key in SERVED.items():
        assert rows[gpu]["wheels"] == ["host", key]
        assert rows[gpu]["extra"] == gpu
    # gfx908 and gfx90a: gfx9-generic does not cover them, so no extra claims to serve them.
    assert "gfx908" not in rows and "gfx90a" not in rows


def test_the_loader_finds_the_generic_kernel_in_what_the_extra_installs(
    split: dict[str, Any], tmp_path: Path
) -> None:
    from rocm.kpack_loader import arch_list, load_code_object

    found = {p.name: p for p in split["out"].iterdir()}
    by_key = {d["key"]: found[d["file"]] for d in split["report"]["devices"]}
    checked = set()
    for row in split["report"]["downloads"]:
        if row["target"] not in SERVED:
            continue
        checked.add(row["target"])
        chosen = [found[split["fat"].name], *(by_key[k] for k in row["wheels"][1:])]
        binary = unpack(chosen, tmp_path / row["target"]) / "lib" / LIBRARY
        with binary.open("rb") as fh:
            meta = msgpack.unpackb(_section(ELFFile(fh), ".rocm_kpack_ref").data())
        for agent in agent_isas(row["target"]):
            for index in co_indexes(binary):
                got = load_code_object(meta, binary, index, arch_list(agent))
                assert got.status == "SUCCESS" and got.data is not None, (agent, got)
                flags = int.from_bytes(got.data[48:52], "little")  # ELF64 e_flags
                assert flags & 0xFF == MACH[row["target"]], agent
    assert checked == set(SERVED)


def test_device_wheels_install_where_the_host_does(split: dict[str, Any]) -> None:
    for path in split["out"].glob("*.whl"):
        with zipfile.ZipFile(path) as zf:
            (wheel,) = [n for n in zf.namelist() if n.endswith(".dist-info/WHEEL")]
            headers = BytesHeaderParser().parsebytes(zf.read(wheel))
        assert headers["Root-Is-Purelib"] == "true", path.name
