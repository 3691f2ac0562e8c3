"""``wheel-size audit`` on the output of ``wheel-size split``: device wheels are GPU code for
their architectures (``.kpack`` archives, database files), the host wheel's libraries load
theirs from those archives, and every message names wheel members, never temporary files."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from cli_runner import run_main
from conftest import REPO_ROOT
from fatwheel import build_fat_wheel
from wheel_factory import make_artifact, make_wheel

SCHEMA = json.loads((REPO_ROOT / "docs" / "audit-format.schema.json").read_text())


@pytest.fixture(scope="module")
def split_out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    work = tmp_path_factory.mktemp("split")
    fat = build_fat_wheel(work / "fat")
    result = run_main(
        ["split", "--input", str(fat), "--output-dir", str(work / "out"),
         "--device-package-prefix", "amd-torch-device", "--overlay-root", "torch/",
         "--wheel-type", "torch-fat"],
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    return work / "out"


def _audit(*args: str) -> tuple[dict[str, Any], str]:
    result = run_main(["audit", *args, "--format", "json"])
    assert result.returncode == 0, result.stderr
    data: dict[str, Any] = json.loads(result.stdout)
    jsonschema.validate(data, SCHEMA)
    return data, result.stdout + result.stderr


def test_device_wheels_are_gpu_code(split_out: Path) -> None:
    data, text = _audit(str(split_out))
    device = sorted(split_out.glob("amd_torch_device_*.whl"))
    assert len(device) >= 10
    verdicts = {v["wheel"]: v for v in data["verdicts"]}
    for wheel in device:
        verdict = verdicts[str(wheel)]
        assert verdict["verdict"] == "keep", verdict
        assert "GPU code for" in verdict["reason"]
    assert "holds no native code" not in text
    assert "label-without-native-code" not in text
    assert "platform-tag-without-native-code" not in text
    wheels = {Path(w["path"]).name: w for w in data["wheels"]}
    for wheel in device:
        key = wheel.name.split("-", 1)[0].removeprefix("amd_torch_device_")
        archs = {a for g in wheels[wheel.name]["gpu_files"] for a in g["archs"]}
        # each device wheel carries code for its bundle key (or a target of that family)
        with zipfile.ZipFile(wheel) as zf:
            kpacks = [n for n in zf.namelist() if n.endswith(".kpack")]
        kinds = {g["kind"] for g in wheels[wheel.name]["gpu_files"]}
        assert archs, wheel.name
        if kpacks:
            assert "kpack" in kinds
            for member in kpacks:
                arch = member.rsplit("_", 1)[-1].removesuffix(".kpack")
                # the archive is named by its processor; its code may be feature-qualified
                assert arch in {a.split(":")[0] for a in archs}, (member, archs)
        else:
            assert kinds == {"gpu-database"}
            assert key in archs
    gfx942 = next(w for name, w in wheels.items() if name.startswith("amd_torch_device_gfx942-"))
    kpack = [g for g in gfx942["gpu_files"] if g["kind"] == "kpack"]
    assert kpack and all(g["kernels"] > 0 for g in kpack)
    assert all(g["path"].startswith("torch/.kpack/torch_gfx942") for g in kpack)


def test_host_wheel_loads_gpu_code_from_kpacks(split_out: Path) -> None:
    data, _ = _audit(str(split_out))
    (host,) = [w for w in data["wheels"] if w["distribution"] == "torch"]
    refs = {n["path"]: n["kpack_reference"] for n in host["native_extensions"]}
    assert refs["torch/lib/libplain19.so"] == "lib/libplain19.so"
    assert refs["torch/lib/libhost.so"] is None  # never had device code
    (verdict,) = [v for v in data["verdicts"] if v["wheel"] == host["path"]]
    assert verdict["verdict"] == "keep"
    assert "load GPU code from .kpack archives" in verdict["reason"]


def _rewrite(src: Path, dest: Path, change: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dest, "w", zipfile.ZIP_DEFLATED) as zout:
        for info in zin.infolist():
            zout.writestr(info, change.get(info.filename, zin.read(info.filename)))
    return dest


def test_messages_name_members_not_temporary_files(split_out: Path, tmp_path: Path) -> None:
    """A corrupt kpack and a truncated fat library inside wheels that sit inside an artifact
    zip: every message names the artifact, the wheel and the member."""
    device = next(split_out.glob("amd_torch_device_gfx942-*.whl"))
    with zipfile.ZipFile(device) as zf:
        member = next(n for n in zf.namelist() if n.endswith(".kpack"))
        data = zf.read(member)
    broken = tmp_path / "broken"
    broken.mkdir()
    bad_device = _rewrite(device, broken / device.name, {member: data[: len(data) - 7]})
    fat_lib = REPO_ROOT / "tests" / "data" / "hip" / "libplain19.so"
    truncated = fat_lib.read_bytes()
    truncated = truncated[: len(truncated) * 2 // 3]
    bad_host = make_wheel(
        broken,
        "hostlib",
        "1.0+rocm7.1",
        "cp311-cp311-manylinux_2_28_x86_64",
        {"hostlib/lib/libplain19.so": truncated},
    )
    (broken / "not-a-wheel.whl").write_bytes(b"PK\x03\x04 truncated")
    artifact = make_artifact(
        tmp_path / "wheels-rocm.zip", [bad_device, bad_host, broken / "not-a-wheel.whl"]
    )
    result = run_main(["audit", str(artifact), "--format", "json"])
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    jsonschema.validate(report, SCHEMA)
    everything = result.stdout + result.stderr
    assert "wheel-size-audit-" not in everything and "wheel-size-run-" not in everything
    problems = {
        f["wheels"][0]: f["detail"]
        for f in report["findings"]
        if f["kind"] in ("wheel-problem", "unreadable")
    }
    device_label = f"{artifact}!{device.name}"
    assert problems[device_label].startswith(f"{device_label}:{member}: ")
    host_label = f"{artifact}!{bad_host.name}"
    assert f"{host_label}:hostlib/lib/libplain19.so" in problems[host_label]
    junk_label = f"{artifact}!not-a-wheel.whl"
    assert problems[junk_label].startswith(junk_label)
    verdicts = {v["wheel"]: v["verdict"] for v in report["verdicts"]}
    assert verdicts[device_label] == verdicts[host_label] == verdicts[junk_label] == "fix"


def test_standalone_code_objects_and_bundles(split_out: Path, tmp_path: Path) -> None:
    """Tensile-style files outside any host library: a clang-built AMDGPU code object (taken
    from a kpack the split wrote) and an offload bundle of it; their targets come from the
    ELF e_flags and the bundle's entry IDs, not from the file names."""
    from wheel_size.rocm.kpack import parse_kpack
    from wheel_size.rocm.offload_bundle import build_plain_bundle

    device = next(split_out.glob("amd_torch_device_gfx942-*.whl"))
    with zipfile.ZipFile(device) as zf:
        name = next(n for n in zf.namelist() if n.endswith("torch_gfx942.kpack"))
        archive = parse_kpack(zf.read(name))
    # a bare entry: feature-qualified TOC strings may alias a bare code object now
    key, arch = next((k, a) for k, a in archive.keys() if a == "gfx942")  # noqa: SIM118
    code = archive.get(key, arch)
    bundle = build_plain_bundle(
        [("host-x86_64-unknown-linux-gnu", b""), (f"hipv4-amdgcn-amd-amdhsa--{arch}", code)]
    )
    wheel = make_wheel(
        tmp_path,
        "rocblas_kernels",
        "1.0+rocm7.1",
        "py3-none-manylinux_2_28_x86_64",
        {"rb/library/Kernels.so-000-unnamed.hsaco": code, "rb/library/TensileLibrary_x.co": bundle},
    )
    data, _ = _audit(str(wheel))
    (info,) = data["wheels"]
    files = {g["path"]: g for g in info["gpu_files"]}
    assert files["rb/library/Kernels.so-000-unnamed.hsaco"]["kind"] == "code-object"
    assert files["rb/library/Kernels.so-000-unnamed.hsaco"]["archs"] == [arch]
    assert files["rb/library/TensileLibrary_x.co"]["kind"] == "offload-bundle"
    assert files["rb/library/TensileLibrary_x.co"]["archs"] == [arch]
    assert info["native_extensions"] == []  # GPU code objects are not host libraries
    assert data["verdicts"][0]["verdict"] == "keep", data["verdicts"]


def test_kpack_aliases_are_not_kernels_or_architectures(split_out: Path) -> None:
    """A per-processor archive files each code object under every feature alias an agent
    may report (nine strings for a gfx90a one): the audit counts stored code objects (the
    TOC's distinct ordinals, read here with msgpack) and names the targets they were built
    for (the manifest's), never the aliases (``gfx90a:sramecc-:xnack+`` names no build)."""
    import msgpack

    from hipfx import manifest

    built = {
        code["target"]
        for lib in manifest()["libraries"].values()
        for bundle in lib["bundles"]
        for code in bundle["code_objects"]
    }
    data, _ = _audit(str(split_out))
    checked = 0
    for row in data["wheels"]:
        for gpu in row["gpu_files"]:
            if gpu["kind"] != "kpack":
                continue
            with zipfile.ZipFile(row["path"]) as zf:
                raw = zf.read(gpu["path"])
            toc = msgpack.unpackb(raw[int.from_bytes(raw[8:16], "little") :], raw=False)
            ordinals = {e["ordinal"] for arches in toc["toc"].values() for e in arches.values()}
            assert gpu["kernels"] == len(ordinals), gpu["path"]
            processors = {a.split(":")[0] for a in gpu["archs"]}
            assert set(gpu["archs"]) <= built | processors, gpu["path"]
            checked += 1
    assert checked >= 10
