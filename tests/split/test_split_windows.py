"""``wheel-size split`` on a ``win_amd64`` fat wheel of real clang/lld-link HIP DLLs: the same
command, outputs and report as on Linux; every host DLL is a valid PE that llvm-readobj reads
cleanly, every kpack holds what clang-offload-bundler extracts; bad Windows input is one line
naming the member, exit 2, and no output directory."""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

import jsonschema
import msgpack
import pytest

from cli_runner import run_main
from conftest import REPO_ROOT
from fatwheel import DATABASE_FILES, HIP_DIR, build_stub_wheel
from fatwheel_pe import DLLS, build_fat_windows_wheel
from hipfx_pe import HIP_PE, SEARCH, fat_dlls, images, readobj_complaints
from wheel_size.rocm.kpack import parse_kpack
from wheel_size.rocm.pe_file import PeImage
from wheel_size.rocm.pe_verify import hip_problems, structural_problems
from wheel_size.split.names import hierarchy, wheel_escape
from wheel_size.wheel.record import hash_bytes, parse_record

PREFIX = "amd-torch-device"
FAT = {name: images()[name] for name in fat_dlls()}


def split_args(wheel: Path, out: Path, *extra: str) -> list[str]:
    return [
        "split", "--input", str(wheel), "--output-dir", str(out), "--device-package-prefix",
        PREFIX, "--overlay-root", "torch/", "--wheel-type", "torch-fat", *extra,
    ]  # fmt: skip


@pytest.fixture(scope="module")
def win_wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_fat_windows_wheel(tmp_path_factory.mktemp("win"))


@pytest.fixture(scope="module")
def split(win_wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    base = tmp_path_factory.mktemp("winsplit")
    out, report = base / "out", base / "report.json"
    args = split_args(win_wheel, out, "-j", "2", "--report-json", str(report))
    result = run_main([*args, "--report-md", str(base / "r.md")])
    assert result.returncode == 0, result.stderr
    return {
        "out": out,
        "report": json.loads(report.read_text()),
        "markdown": (base / "r.md").read_text(),
        "stderr": result.stderr,
    }


def wheels(out: Path) -> dict[str, Path]:
    return {p.name: p for p in out.iterdir()}


def test_outputs_are_windows_wheels(split: dict[str, Any], win_wheel: Path) -> None:
    table = hierarchy()
    keys = {table.bundle_key(t) for lib in FAT.values() for t in lib["targets"]}
    keys |= {k for k in DATABASE_FILES.values() if k}
    tag = win_wheel.name.split("-", 2)[2][: -len(".whl")]
    assert tag.endswith("-win_amd64")
    devices = {
        f"{wheel_escape(PREFIX + '-' + k.replace('_', '-'))}-2.10.0+rocm7.1-{tag}.whl" for k in keys
    }
    assert set(wheels(split["out"])) == {win_wheel.name, *devices}
    for path in wheels(split["out"]).values():
        with zipfile.ZipFile(path) as zf:
            names = zf.namelist()
            record = next(n for n in names if n.endswith(".dist-info/RECORD"))
            entries = {e.path: e for e in parse_record(zf.read(record).decode())}
            assert set(entries) == set(names)
            for name in names:
                if name != record:
                    assert entries[name].hash == hash_bytes(zf.read(name)), (path.name, name)


def test_host_dlls_are_split_and_valid(
    split: dict[str, Any], win_wheel: Path, tmp_path: Path
) -> None:
    with zipfile.ZipFile(wheels(split["out"])[win_wheel.name]) as zf:
        for name in FAT:
            path = tmp_path / name
            path.write_bytes(zf.read(f"torch/lib/{name}"))
            image = PeImage(path.read_bytes(), name)
            assert structural_problems(image) == [] and hip_problems(image) == [], name
            ref = image.section(".kpackrf")
            assert ref is not None
            assert msgpack.unpackb(image.read_section(ref)[: ref.virtual_size]) == {
                "kernel_name": f"lib/{name}",
                "kpack_search_paths": SEARCH,
            }
            assert readobj_complaints(path) == [], name
            assert path.stat().st_size < (HIP_PE / name).stat().st_size
        # Windows files without device code are copied unchanged.
        assert zf.read("torch/lib/host_only.dll") == (HIP_PE / "host_only.dll").read_bytes()
        pyd = next(n for n in zf.namelist() if n.endswith(".pyd"))
        assert zf.read(pyd) == (HIP_PE / "host_only.dll").read_bytes()
        assert zf.read("torch/lib/torch_hip.lib").startswith(b"!<arch>\n")


def kpack_contents(out: Path) -> dict[tuple[str, str], bytes]:
    """(arch, key) -> code object, from every kpack of every device wheel (any layout)."""
    found: dict[tuple[str, str], bytes] = {}
    for path in out.iterdir():
        if not path.name.startswith(wheel_escape(PREFIX)):
            continue
        with zipfile.ZipFile(path) as zf:
            for name in zf.namelist():
                if name.startswith("torch/.kpack/"):
                    archive = parse_kpack(zf.read(name), name)
                    assert archive.group_name == "torch"
                    for key, arch, data in archive.iter_kernels():
                        found[(arch, key)] = data
    return found


def test_kpacks_hold_what_clang_offload_bundler_extracts(split: dict[str, Any]) -> None:
    kpacks = kpack_contents(split["out"])
    checked = 0
    for name, info in FAT.items():
        for ordinal, bundle in enumerate(info["bundles"]):
            for code in bundle["code_objects"]:
                data = kpacks[(code["target"], f"lib/{name}#{ordinal}")]
                assert hashlib.sha256(data).hexdigest() == code["sha256"], (name, code)
                checked += 1
    assert checked == sum(len(b["code_objects"]) for i in FAT.values() for b in i["bundles"])


def test_report_is_the_linux_report(split: dict[str, Any]) -> None:
    report = split["report"]
    schema = json.loads((REPO_ROOT / "docs" / "split-report.schema.json").read_text())
    jsonschema.validate(report, schema)
    assert report["summary"]["fat_binaries"] == len(FAT)
    libs = {row["path"]: row for row in report["libraries"]}
    assert set(libs) == {f"lib/{n}" for n in FAT}
    for name, info in FAT.items():
        assert libs[f"lib/{name}"]["targets"] == info["targets"]
        assert libs[f"lib/{name}"]["original"] == info["size"]
    assert libs["lib/hip_plain.dll"]["saved"] > 60_000
    rows = {row["target"]: row for row in report["downloads"]}
    assert rows["gfx1100"]["wheels"] == ["host", "gfx1100", "gfx110x", "gfx11"]
    assert "| `lib/hip_plain.dll` |" in split["markdown"]


def test_member_names_can_be_written_on_windows(split: dict[str, Any]) -> None:
    """NTFS refuses ``:`` (and ``*?"<>|``) in file names; a Windows device wheel whose kpack is
    called ``torch_gfx942:sramecc+:xnack-.kpack`` cannot be installed there."""
    bad = sorted(
        name
        for path in wheels(split["out"]).values()
        for name in zipfile.ZipFile(path).namelist()
        if any(c in name for c in ':*?"<>|\\')
    )
    assert bad == []  # one archive per processor (torch_gfx942.kpack) names no feature


@pytest.mark.slow
def test_pip_resolves_one_windows_gpu(split: dict[str, Any], tmp_path: Path) -> None:
    links = tmp_path / "links"
    links.mkdir()
    for path in split["out"].iterdir():
        shutil.copy(path, links)
    build_stub_wheel(links)
    report = tmp_path / "pip.json"
    tag = next(p.name for p in links.iterdir() if p.name.startswith("torch-")).split("-")[2]
    result = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--dry-run", "--ignore-installed", "--quiet",
         "--disable-pip-version-check", "--report", str(report), "--no-index", "--find-links",
         str(links), "--platform", "win_amd64", "--only-binary=:all:",
         "--python-version", tag[2:], "--target", str(tmp_path / "t"), "torch[gfx1100]"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    chosen = {i["metadata"]["name"] for i in json.loads(report.read_text())["install"]}
    assert chosen == {"torch", "rocm-bootstrap", f"{PREFIX}-gfx1100", f"{PREFIX}-gfx110x",
                      f"{PREFIX}-gfx11"}  # fmt: skip


# --- bad input -------------------------------------------------------------------------


def assert_refused(wheel: Path, out: Path, *needles: str) -> None:
    result = run_main(split_args(wheel, out, "-j", "2"))
    lines = [ln for ln in result.stderr.splitlines() if ln.startswith("wheel-size: error:")]
    assert result.returncode == 2, result.stderr
    assert len(lines) == 1 and "Traceback" not in result.stderr, result.stderr
    for needle in needles:
        assert needle in lines[0], lines[0]
    assert not out.exists()
    assert not [p for p in out.parent.iterdir() if p.name.startswith(f".{out.name}.split-")]


def test_malformed_hip_fat(tmp_path: Path) -> None:
    data = bytearray((HIP_PE / "hip_plain.dll").read_bytes())
    magic = b"__CLANG_OFFLOAD_BUNDLE__"
    at = data.index(magic) + len(magic) + 8
    data[at + 8 : at + 16] = (1 << 40).to_bytes(8, "little")
    wheel = build_fat_windows_wheel(tmp_path, extra={"torch/lib/hip_bad.dll": bytes(data)})
    assert_refused(wheel, tmp_path / "out", f"{wheel}:torch/lib/hip_bad.dll", ".hip_fat")


def test_truncated_dll(tmp_path: Path) -> None:
    data = (HIP_PE / "hip_ccob.dll").read_bytes()[:3000]
    wheel = build_fat_windows_wheel(tmp_path, extra={"torch/lib/hip_cut.dll": data})
    assert_refused(wheel, tmp_path / "out", f"{wheel}:torch/lib/hip_cut.dll", "past the end")


@pytest.mark.parametrize("member", ["torch/bin/hip_kernel.exe", "torch/lib/hip_kernel.dll"])
def test_a_pe_that_is_not_a_dll(tmp_path: Path, member: str) -> None:
    exe = (HIP_PE / "hip_kernel.exe").read_bytes()
    wheel = build_fat_windows_wheel(tmp_path, extra={member: exe})
    assert_refused(wheel, tmp_path / "out", f"{wheel}:{member}", "not a DLL")


def test_a_bundle_for_an_unknown_target(tmp_path: Path) -> None:
    data = (HIP_PE / "hip_plain.dll").read_bytes().replace(b"amdhsa--gfx1201", b"amdhsa--gfx1299")
    wheel = build_fat_windows_wheel(tmp_path, extra={"torch/lib/hip_odd.dll": data})
    assert_refused(wheel, tmp_path / "out", f"{wheel}:torch/lib/hip_odd.dll", "gfx1299")


def test_a_wheel_mixing_elf_and_pe(tmp_path: Path) -> None:
    elf = (HIP_DIR / "libplain19.so").read_bytes()
    wheel = build_fat_windows_wheel(tmp_path, extra={"torch/lib/libplain19.so": elf})
    assert_refused(wheel, tmp_path / "out", str(wheel), "mixes ELF and PE/COFF", "libplain19.so")


def test_the_fixture_wheel_carries_every_dll() -> None:
    assert set(DLLS) >= set(FAT) and "host_only.dll" in DLLS


def test_reproducible_across_job_counts(
    split: dict[str, Any], win_wheel: Path, tmp_path: Path
) -> None:
    out = tmp_path / "again"
    args = split_args(win_wheel, out, "-j", "1", "--report-json", str(tmp_path / "r.json"))
    result = run_main([*args, "--verify-bundle-hash"])
    assert result.returncode == 0, result.stderr
    for name, path in wheels(out).items():
        assert path.read_bytes() == (split["out"] / name).read_bytes(), name


def test_unregistered_device_code_stays_in_the_host_wheel(tmp_path: Path) -> None:
    """A .hip_fat that no .hipFatB wrapper registers is kept byte for byte, with a warning."""
    odd = (HIP_PE / "hip_ccob.dll").read_bytes().replace(b".hipFatB", b".hipFatX")
    wheel = build_fat_windows_wheel(tmp_path, extra={"torch/lib/hip_odd.dll": odd})
    out = tmp_path / "out"
    result = run_main(split_args(wheel, out))
    assert result.returncode == 0, result.stderr
    warnings = [ln for ln in result.stderr.splitlines() if ln.startswith("wheel-size: warning:")]
    assert any(f"{wheel}:torch/lib/hip_odd.dll: .hip_fat is not registered" in w for w in warnings)
    with zipfile.ZipFile(out / wheel.name) as zf:
        assert zf.read("torch/lib/hip_odd.dll") == odd
