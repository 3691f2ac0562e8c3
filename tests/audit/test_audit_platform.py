"""The platform tag against what native files need, on binaries real compilers built here:
glibc symbol versions (gcc), macOS minimums and slices (clang + ld64.lld + llvm-lipo), PE
machines (clang + lld-link)."""

from __future__ import annotations

import json
import platform
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from cli_runner import run_main
from conftest import REPO_ROOT
from wheel_factory import make_wheel

SCHEMA = json.loads((REPO_ROOT / "docs" / "audit-format.schema.json").read_text())
MAIN = "int main(void) { return 0; }\n"
LIB = "int answer(void) { return 42; }\n"


def _audit(*paths: Path, extra: tuple[str, ...] = ()) -> dict[str, Any]:
    result = run_main(["audit", *map(str, paths), "--format", "json", *extra])
    assert result.returncode == 0, result.stderr
    data: dict[str, Any] = json.loads(result.stdout)
    jsonschema.validate(data, SCHEMA)
    return data


def _tool(name: str) -> str:
    path = shutil.which(name)
    if path is None:
        pytest.skip(f"{name} is not installed: cannot build this test's binary")
    return path


def _findings(data: dict[str, Any], kind: str) -> dict[str, str]:
    return {f["wheels"][0]: f["detail"] for f in data["findings"] if f["kind"] == kind}


def _verdicts(data: dict[str, Any]) -> dict[str, str]:
    return {v["wheel"]: v["verdict"] for v in data["verdicts"]}


@pytest.fixture(scope="module")
def shm_manager(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """A gcc-linked executable and the newest GLIBC_x.y it needs, as objdump reads it."""
    gcc = _tool("gcc")
    objdump = _tool("objdump")
    work = tmp_path_factory.mktemp("glibc")
    (work / "m.c").write_text(MAIN)
    subprocess.run(
        [gcc, "-O1", "-o", str(work / "torch_shm_manager"), str(work / "m.c")], check=True
    )
    dump = subprocess.run(
        [objdump, "-T", str(work / "torch_shm_manager")], capture_output=True, text=True, check=True
    ).stdout
    versions = re.findall(r"\(GLIBC_([\d.]+)\)\s+(\S+)", dump)
    newest = max(versions, key=lambda v: tuple(map(int, v[0].split("."))))
    return work / "torch_shm_manager", newest[0]


def _glibc_tuple(text: str) -> tuple[int, ...]:
    return tuple(int(p) for p in text.split("."))


def test_glibc_newer_than_the_manylinux_tag(shm_manager: tuple[Path, str], tmp_path: Path) -> None:
    binary, needed = shm_manager
    arch = platform.machine()
    major, minor = _glibc_tuple(needed)[:2]
    if (major, minor) <= (2, 17):
        pytest.skip(f"this system's gcc links against GLIBC_{needed}: nothing newer than 2.17")
    below = f"manylinux_{major}_{minor - 1}_{arch}" if minor > 17 else f"manylinux2014_{arch}"
    tags = {
        "low": f"cp311-cp311-{below}",
        "exact": f"cp311-cp311-manylinux_{major}_{minor}_{arch}",
        "above": f"cp311-cp311-manylinux_{major}_{minor + 1}_{arch}",
        "compressed": f"cp311-cp311-manylinux_2_17_{arch}.manylinux2014_{arch}",
        "musl": f"cp311-cp311-musllinux_1_2_{arch}",
        "plain": f"cp311-cp311-linux_{arch}",
    }
    wheels = {}
    for job, tag in tags.items():
        (tmp_path / job).mkdir()
        wheels[job] = str(
            make_wheel(
                tmp_path / job,
                "torch",
                "2.10.0",
                tag,
                {"torch/bin/torch_shm_manager": binary, "torch/job.txt": job.encode()},
            )
        )
    data = _audit(tmp_path)
    too_new = _findings(data, "glibc-too-new")
    assert set(too_new) == {wheels["low"], wheels["compressed"]}
    detail = too_new[wheels["low"]]
    # the member (never a temporary path), the symbol version and the tag are named
    assert detail.startswith(f"torch/bin/torch_shm_manager requires GLIBC_{needed} (")
    assert f"the tag {below} promises" in detail
    if needed == "2.34":  # Debian 12 / any glibc >= 2.34 system
        assert "__libc_start_main@GLIBC_2.34" in detail
    assert f"the tag manylinux_2_17_{arch} promises glibc 2.17" in too_new[wheels["compressed"]]
    verdicts = _verdicts(data)
    assert verdicts[wheels["low"]] == verdicts[wheels["compressed"]] == "fix"
    assert verdicts[wheels["exact"]] == verdicts[wheels["above"]] == "keep"
    assert verdicts[wheels["musl"]] == "keep"  # musllinux makes no glibc promise
    assert list(_findings(data, "platform-tag-not-on-pypi")) == [wheels["plain"]]
    assert verdicts[wheels["plain"]] == "keep"  # informational
    native = {w["path"]: w["native_extensions"][0] for w in data["wheels"]}
    assert native[wheels["low"]]["glibc_required"] == needed
    assert native[wheels["low"]]["machines"] == [arch]


def test_elf_for_another_cpu_than_the_tag(shm_manager: tuple[Path, str], tmp_path: Path) -> None:
    binary, _ = shm_manager
    other = "aarch64" if platform.machine() == "x86_64" else "x86_64"
    wheel = make_wheel(
        tmp_path, "ao", "1.0", f"cp311-cp311-manylinux_2_39_{other}", {"ao/bin/tool": binary}
    )
    data = _audit(wheel)
    assert _findings(data, "platform-mismatch") == {
        str(wheel): f"ao/bin/tool is built for {platform.machine()}, not for the tag "
        f"manylinux_2_39_{other}"
    }


@pytest.fixture(scope="module")
def dylibs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    clang = _tool("clang-19")
    ld64 = _tool("ld64.lld-19")
    lipo = _tool("llvm-lipo-19")
    work = tmp_path_factory.mktemp("macho")
    (work / "k.c").write_text(LIB)
    out: dict[str, Path] = {}
    for arch, version, name in (
        ("arm64", "13.0", "arm64"),
        ("x86_64", "10.9", "x86_64"),
        ("x86_64", "12.0", "x86_64_new"),
    ):
        obj = work / f"k_{name}.o"
        subprocess.run(
            [
                clang,
                f"--target={arch}-apple-macos{version}",
                "-c",
                str(work / "k.c"),
                "-o",
                str(obj),
            ],
            check=True,
        )
        out[name] = work / f"k_{name}.dylib"
        subprocess.run(
            [ld64, "-dylib", "-arch", arch, "-platform_version", "macos", version, version,
             "-o", str(out[name]), str(obj)],
            check=True,
        )  # fmt: skip
    out["universal2"] = work / "k_universal2.dylib"
    subprocess.run(
        [lipo, "-create", str(out["arm64"]), str(out["x86_64"]), "-output", str(out["universal2"])],
        check=True,
    )
    out["universal2_new"] = work / "k_universal2_new.dylib"  # both slices need more than 10.9
    subprocess.run(
        [lipo, "-create", str(out["arm64"]), str(out["x86_64_new"]),
         "-output", str(out["universal2_new"])],
        check=True,
    )  # fmt: skip
    return out


def test_macos_minimum_and_slices(dylibs: dict[str, Path], tmp_path: Path) -> None:
    cases: dict[str, tuple[str, Path]] = {
        "arm_ok": ("macosx_13_0_arm64", dylibs["arm64"]),
        "arm_low": ("macosx_11_0_arm64", dylibs["arm64"]),  # built for 13.0
        "x86_ok": ("macosx_10_9_x86_64", dylibs["x86_64"]),
        "univ_low": ("macosx_10_9_universal2", dylibs["universal2"]),  # arm64 slice needs 13.0
        "univ_both": ("macosx_10_9_universal2", dylibs["universal2_new"]),  # both slices do
        "univ_thin": ("macosx_13_0_universal2", dylibs["arm64"]),  # no x86_64 slice
        "wrong_cpu": ("macosx_13_0_x86_64", dylibs["arm64"]),
    }
    wheels = {}
    for job, (plat, lib) in cases.items():
        (tmp_path / job).mkdir()
        files: dict[str, bytes | Path] = {"ao/libk.dylib": lib, "ao/job.txt": job.encode()}
        wheels[job] = str(make_wheel(tmp_path / job, "ao", "1.0", f"cp311-cp311-{plat}", files))
    data = _audit(tmp_path)
    too_new = _findings(data, "macos-too-new")
    assert too_new == {
        wheels["arm_low"]: "ao/libk.dylib (arm64) needs macOS 13.0 but the tag "
        "macosx_11_0_arm64 promises macOS 11.0",
        wheels["univ_low"]: "ao/libk.dylib (arm64) needs macOS 13.0 but the tag "
        "macosx_10_9_universal2 promises macOS 10.9",
        wheels["univ_both"]: "ao/libk.dylib (arm64) needs macOS 13.0 and (x86_64) needs macOS "
        "12.0 but the tag macosx_10_9_universal2 promises macOS 10.9",
    }
    mismatch = _findings(data, "platform-mismatch")
    assert mismatch == {
        wheels["univ_thin"]: "ao/libk.dylib has no x86_64 slice, which the tag "
        "macosx_13_0_universal2 promises",
        wheels["wrong_cpu"]: "ao/libk.dylib is built for arm64, not for the tag macosx_13_0_x86_64",
    }
    verdicts = _verdicts(data)
    assert verdicts[wheels["arm_ok"]] == verdicts[wheels["x86_ok"]] == "keep"
    native = {w["path"]: w["native_extensions"][0] for w in data["wheels"]}
    assert native[wheels["univ_low"]]["macos_minimum"] == {"arm64": "13.0", "x86_64": "10.9"}


def test_windows_machine_and_wrong_os(
    dylibs: dict[str, Path], shm_manager: tuple[Path, str], tmp_path: Path
) -> None:
    clang = _tool("clang-19")
    link = _tool("lld-link-19")
    (tmp_path / "k.c").write_text(LIB)
    dlls: dict[str, Path] = {}
    for triple, machine in (("x86_64-pc-windows-msvc", "x64"), ("i686-pc-windows-msvc", "x86")):
        obj = tmp_path / f"{machine}.obj"
        subprocess.run(
            [clang, f"--target={triple}", "-c", str(tmp_path / "k.c"), "-o", str(obj)], check=True
        )
        dlls[machine] = tmp_path / f"{machine}.dll"
        subprocess.run(
            [link, "/dll", "/noentry", "/nodefaultlib", f"/machine:{machine}", "/export:answer",
             f"/out:{dlls[machine]}", str(obj)],
            check=True,
        )  # fmt: skip
    cases: dict[str, tuple[str, str, Path]] = {
        "win64": ("win_amd64", "ao/_k.pyd", dlls["x64"]),
        "win32_wrong": ("win32", "ao/_k.pyd", dlls["x64"]),
        "win32": ("win32", "ao/_k.pyd", dlls["x86"]),
        "linux_dll": (f"manylinux_2_17_{platform.machine()}", "ao/_k.pyd", dlls["x64"]),
    }
    wheels = {}
    for job, (plat, member, lib) in cases.items():
        (tmp_path / job).mkdir()
        files: dict[str, bytes | Path] = {member: lib, "ao/job.txt": job.encode()}
        wheels[job] = str(make_wheel(tmp_path / job, "ao", "1.0", f"cp311-cp311-{plat}", files))
    data = _audit(*(Path(w) for w in wheels.values()))
    assert _findings(data, "platform-mismatch") == {
        wheels["win32_wrong"]: "ao/_k.pyd is built for amd64, not for the tag win32",
        wheels["linux_dll"]: "ao/_k.pyd is a PE (Windows) file in a wheel tagged "
        f"manylinux_2_17_{platform.machine()}",
    }
    verdicts = _verdicts(data)
    assert verdicts[wheels["win64"]] == verdicts[wheels["win32"]] == "keep"
