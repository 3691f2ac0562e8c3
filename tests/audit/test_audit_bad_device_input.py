"""Issue 31's bad input, a whole wheel at a time: a DLL whose ``.hip_fat`` is cut short
beside a good cubin is one problem line naming the DLL in ``audit``, ``diff`` and ``bloat``,
and the cubin, the DLL's sections and the rest of the wheel are still read; 10^5 members
under content-hash directories are audited and diffed in bounded memory, every one paired.
(A cubin whose header lies: tests/audit/test_audit_cubins.py and tests/diff/
test_diff_cubins.py; a CCOB bundle whose zstd frame lies about its size:
tests/native/test_lying_zstd_frame.py.)"""

from __future__ import annotations

import hashlib
import json
import os
import struct
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

import pytest

from cli_runner import run_main
from conftest import checkout_env
from cubinfx import cubin, cubin_wheel
from fatwheel import _record_line
from hipfx_pe import HIP_PE
from wheel_size.diff.compare import diff_wheels


def _cut_hip_fat(name: str) -> bytes:
    """The DLL with its ``.hip_fat`` section cut to 96 bytes (VirtualSize) of 512 stored:
    the bundle header promises code objects past the section's end."""
    data = bytearray((HIP_PE / name).read_bytes())
    pe = struct.unpack_from("<I", data, 0x3C)[0]
    count, optional = (
        struct.unpack_from("<H", data, pe + 6)[0],
        struct.unpack_from("<H", data, pe + 20)[0],
    )
    table = pe + 24 + optional
    cut = 0
    for i in range(count):
        at = table + 40 * i
        if data[at : at + 8].rstrip(b"\0") == b".hip_fat":
            struct.pack_into("<I", data, at + 8, 96)
            struct.pack_into("<I", data, at + 16, 512)
            cut += 1
    assert cut == 1, f"{name} has one .hip_fat section"
    return bytes(data)


@pytest.mark.parametrize("dll", ["hip_plain.dll", "hip_ccob.dll"])
def test_a_truncated_hip_fat_is_one_problem_and_the_wheel_is_still_read(
    dll: str, tmp_path: Path
) -> None:
    members = {"k/ok.cubin": cubin("k_sm_90.cubin"), "k/rocm.dll": _cut_hip_fat(dll)}
    new = cubin_wheel(tmp_path / "n", "1.1", members)
    old = cubin_wheel(tmp_path / "o", "1.0", {"k/ok.cubin": cubin("k_sm_80.cubin")})

    audit = run_main(["audit", "--format", "json", str(new)])
    assert audit.returncode == 0, audit.stderr
    (row,) = json.loads(audit.stdout)["wheels"]
    (problem,) = row["problems"]
    assert ":k/rocm.dll" in problem and "\n" not in problem
    assert {g["path"]: g["archs"] for g in row["gpu_files"]} == {"k/ok.cubin": ["sm_90"]}
    (native,) = row["native_extensions"]
    assert native["path"] == "k/rocm.dll" and native["machines"] == ["amd64"]

    diff = diff_wheels(old, new)
    problems = [p for f in diff.files for p in f.problems]
    assert len(problems) == 1 and "rocm.dll" in problems[0] and "\n" not in problems[0]
    (library,) = [f for f in diff.files if f.path == "k/rocm.dll"]
    assert ".text" in {s.name for s in library.sections}
    assert {g.arch for f in diff.files if f.path == "k/ok.cubin" for g in f.gpu} == {
        "sm_80",
        "sm_90",
    }

    bloat = run_main(["bloat", "--format", "json", str(new)])
    assert bloat.returncode == 0, bloat.stderr
    assert "rocm.dll" in bloat.stdout


_MEMBERS = 99_990  # with METADATA, WHEEL, RECORD and a package file: under the 100,000 limit
_PEAK_BYTES = 512 << 20  # a Python with the package imported is ~80 MB; 10^5 rows ~200-300 MB


def _hashed_wheel(out: Path, version: str, salt: str) -> Path:
    """``many-{version}``: 99,990 one-line members under ``many/<40 hex>/``, the hex a
    digest of ``salt`` (another salt: every directory renamed, the files the same)."""
    out.mkdir(parents=True)
    path = out / f"many-{version}-py3-none-any.whl"
    dist_info = f"many-{version}.dist-info"
    files = {
        f"many/{hashlib.sha1(f'{salt}{i}'.encode()).hexdigest()}/k{i}.txt": f"{i}\n".encode()
        for i in range(_MEMBERS)
    }
    files["many/__init__.py"] = b""
    files[f"{dist_info}/METADATA"] = (
        f"Metadata-Version: 2.1\nName: many\nVersion: {version}\n".encode()
    )
    files[f"{dist_info}/WHEEL"] = b"Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    record = [_record_line(name, data) for name, data in files.items()]
    files[f"{dist_info}/RECORD"] = ("\n".join([*record, f"{dist_info}/RECORD,,"]) + "\n").encode()
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as zf:
        for name, data in files.items():
            zf.writestr(name, data)
    return path


def _peak(args: list[str], work: Path) -> tuple[int, Any]:
    """(peak RSS in bytes, the JSON it printed) of one ``wheel-size`` process, that
    process's own (``wait4``, before anything else reaps it)."""
    out_path, err_path = work / "out.json", work / "err.txt"
    with out_path.open("w") as out, err_path.open("w") as err:
        child = subprocess.Popen(
            [sys.executable, "-m", "wheel_size", *args],
            env=checkout_env(None),
            stdout=out,
            stderr=err,
        )
        _pid, status, usage = os.wait4(child.pid, 0)
        child.returncode = os.waitstatus_to_exitcode(status)
    assert child.returncode == 0, err_path.read_text()
    return usage.ru_maxrss * 1024, json.loads(out_path.read_text())


@pytest.mark.slow
def test_a_hundred_thousand_hashed_members_in_bounded_memory(tmp_path: Path) -> None:
    old = _hashed_wheel(tmp_path / "o", "1.0", "old")
    new = _hashed_wheel(tmp_path / "n", "1.1", "new")
    peak, audit = _peak(["audit", "--format", "json", str(new)], tmp_path)
    (row,) = audit["wheels"]
    assert row["problems"] == [] and peak < _PEAK_BYTES, peak
    peak, diff = _peak(["diff", "--format", "json", str(old), str(new)], tmp_path)
    assert diff["summary"]["added"] == diff["summary"]["removed"] == 0
    assert diff["unchanged"] == _MEMBERS + 2 and peak < _PEAK_BYTES, peak  # + __init__, WHEEL
