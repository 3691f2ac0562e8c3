"""``wheel-size split`` on a fat wheel built from real clang HIP libraries, checked by real tools:
pip resolves and installs the outputs, clang-offload-bundler agrees with every kpack."""

from __future__ import annotations

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
from elftools.elf.elffile import ELFFile

from cli_runner import run_main
from conftest import REPO_ROOT
from elf_sections import section as _section
from fatwheel import DATABASE_FILES, HIP_DIR, build_fat_wheel, build_stub_wheel
from wheel_size.rocm.kpack import parse_kpack
from wheel_size.split.names import hierarchy, wheel_escape
from wheel_size.wheel.record import hash_bytes, parse_record

PREFIX = "amd-torch-device"
MANIFEST = json.loads((HIP_DIR / "manifest.json").read_text())["libraries"]
FAT = {name: lib for name, lib in MANIFEST.items() if lib["targets"]}


def split_args(wheel: Path, out: Path, *extra: str) -> list[str]:
    return [
        "split",
        "--input",
        str(wheel),
        "--output-dir",
        str(out),
        "--device-package-prefix",
        PREFIX,
        "--overlay-root",
        "torch/",
        "--wheel-type",
        "torch-fat",
        *extra,
    ]


@pytest.fixture(scope="module")
def fat_wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_fat_wheel(tmp_path_factory.mktemp("in"))


@pytest.fixture(scope="module")
def split(fat_wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    base = tmp_path_factory.mktemp("split")
    out = base / "out"
    report = base / "report.json"
    args = split_args(
        fat_wheel, out, "-j", "2", "--generate-variant-wheel", "--variant-label", "rocm"
    )
    result = run_main([*args, "--report-json", str(report), "--report-md", str(base / "r.md")])
    assert result.returncode == 0, result.stderr
    return {
        "out": out,
        "report": json.loads(report.read_text()),
        "markdown": (base / "r.md").read_text(),
        "stderr": result.stderr,
    }


def expected_keys() -> set[str]:
    table = hierarchy()
    keys = {table.bundle_key(t) for lib in FAT.values() for t in lib["targets"]}
    return keys | {k for k in DATABASE_FILES.values() if k}


def wheels(out: Path) -> dict[str, Path]:
    return {p.name: p for p in out.iterdir()}


def test_outputs(split: dict[str, Any], fat_wheel: Path) -> None:
    names = set(wheels(split["out"]))
    tag = fat_wheel.name.split("-", 2)[2][: -len(".whl")]
    devices = {
        f"{wheel_escape(PREFIX + '-' + k.replace('_', '-'))}-2.10.0+rocm7.1-{tag}.whl"
        for k in expected_keys()
    }
    assert names == {fat_wheel.name, f"{fat_wheel.name[:-4]}-rocm.whl", *devices}
    # gfx940 (clang-15 library) and gfx803 (a database) are unknown: warned, never fatal.
    assert "'gfx940'" in split["stderr"] and "'gfx803'" in split["stderr"]


def test_every_wheel_has_a_valid_record(split: dict[str, Any]) -> None:
    for path in wheels(split["out"]).values():
        with zipfile.ZipFile(path) as zf:
            names = zf.namelist()
            record_name = next(n for n in names if n.endswith(".dist-info/RECORD"))
            assert names[-1] == record_name  # RECORD last, dist-info last
            assert all(".dist-info/" in n for n in names[names.index(record_name) - 1 :])
            entries = {e.path: e for e in parse_record(zf.read(record_name).decode())}
            assert set(entries) == set(names)
            for name in names:
                if name != record_name:
                    data = zf.read(name)
                    assert entries[name].hash == hash_bytes(data), (path.name, name)
                    assert entries[name].size == len(data)


def test_pip_installs_every_plain_wheel(split: dict[str, Any], tmp_path: Path) -> None:
    plain = [p for n, p in wheels(split["out"]).items() if not n.endswith("-rocm.whl")]
    target = tmp_path / "site"
    result = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--no-deps", "--no-index", "--quiet",
         "--disable-pip-version-check", "--target", str(target), *map(str, plain)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    kpacks = sorted(p.name for p in (target / "torch" / ".kpack").iterdir())
    assert "torch_gfx90a.kpack" in kpacks and "torch_gfx942.kpack" in kpacks
    assert not [name for name in kpacks if ":" in name]  # one archive per processor
    for name in FAT:
        assert (target / "torch" / "lib" / name).exists()


def pip_resolve(out: Path, requirement: str, tmp_path: Path) -> set[str]:
    links = tmp_path / "links"
    links.mkdir(exist_ok=True)
    for path in out.iterdir():
        if not path.name.endswith("-rocm.whl"):  # plain pip cannot read variant file names
            shutil.copy(path, links)
    build_stub_wheel(links)
    report = tmp_path / f"report-{len(list(tmp_path.iterdir()))}.json"
    result = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--dry-run", "--ignore-installed",
         "--disable-pip-version-check", "--quiet", "--report", str(report), "--no-index",
         "--find-links", str(links), requirement],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    data = json.loads(report.read_text())
    return {item["metadata"]["name"] for item in data["install"]}


def test_pip_resolves_one_gpu(split: dict[str, Any], tmp_path: Path) -> None:
    chosen = pip_resolve(split["out"], "torch[gfx1100]", tmp_path)
    assert chosen == {
        "torch",
        "rocm-bootstrap",
        f"{PREFIX}-gfx1100",
        f"{PREFIX}-gfx110x",
        f"{PREFIX}-gfx11",
    }


def test_pip_resolves_all(split: dict[str, Any], tmp_path: Path) -> None:
    chosen = pip_resolve(split["out"], "torch[all]", tmp_path)
    devices = {f"{PREFIX}-{k.replace('_', '-')}" for k in expected_keys()}
    assert chosen == {"torch", "rocm-bootstrap", *devices}


def test_pip_resolves_a_target_wheel_with_its_family(split: dict[str, Any], tmp_path: Path) -> None:
    # rocm-systems#10685: the target wheel alone must pull its family wheels.
    chosen = pip_resolve(split["out"], f"{PREFIX}-gfx1201", tmp_path)
    assert chosen == {"torch", "rocm-bootstrap", f"{PREFIX}-gfx1201", f"{PREFIX}-gfx12-0"}


def kpack_contents(out: Path) -> dict[str, dict[str, bytes]]:
    """arch string -> key -> code object, from every device wheel (an archive is named by
    its processor and lists every arch string of it; each string is in one archive)."""
    found: dict[str, dict[str, bytes]] = {}
    for path in out.iterdir():
        if not path.name.startswith(wheel_escape(PREFIX)):
            continue
        with zipfile.ZipFile(path) as zf:
            for name in zf.namelist():
                if name.startswith("torch/.kpack/"):
                    archive = parse_kpack(zf.read(name), name)
                    processor = name[len("torch/.kpack/torch_") : -len(".kpack")]
                    assert processor in archive.gfx_arches and ":" not in processor
                    assert archive.gfx_arch_family == processor
                    assert archive.group_name == "torch"
                    for key, arch, data in archive.iter_kernels():
                        assert arch.split(":")[0] == processor
                        found.setdefault(arch, {})[key] = data
    return found


def unbundle(library: Path, start: int, end: int, entry_ids: list[str], work: Path) -> list[bytes]:
    """Code objects of one bundle as clang-offload-bundler extracts them.

    All targets are asked for in one call: asked for one generic target alone, clang-19
    returns another *compatible* entry (gfx11-generic for gfx9-generic), not the exact one.
    """
    section = work / "fatbin.bin"
    subprocess.run(
        ["llvm-objcopy-19", f"--dump-section=.hip_fatbin={section}", str(library), str(work / "o")],
        check=True,
    )
    data = section.read_bytes()[start : end or None]
    if data[:4] == b"CCOB":  # its own size: the bundler rejects the zero padding after it
        version = int.from_bytes(data[4:6], "little")
        total = int.from_bytes(data[8:16] if version >= 3 else data[8:12], "little")
        data = data[:total] if version >= 2 else data
    piece = work / "bundle.bin"
    piece.write_bytes(data)
    outputs = [work / f"co{i}.bin" for i in range(len(entry_ids))]
    subprocess.run(
        ["clang-offload-bundler-19", "--unbundle", "--type=o", f"--input={piece}",
         f"--targets={','.join(entry_ids)}", *(f"--output={o}" for o in outputs)],
        check=True,
    )  # fmt: skip
    return [o.read_bytes() for o in outputs]


@pytest.mark.skipif(
    shutil.which("clang-offload-bundler-19") is None or shutil.which("llvm-objcopy-19") is None,
    reason="clang-offload-bundler-19 / llvm-objcopy-19 not installed",
)
def test_round_trip_against_clang_offload_bundler(split: dict[str, Any], tmp_path: Path) -> None:
    kpacks = kpack_contents(split["out"])
    checked = 0
    for name, lib in FAT.items():
        bundles = lib["bundles"]
        for ordinal, bundle in enumerate(bundles):
            end = bundles[ordinal + 1]["offset"] if ordinal + 1 < len(bundles) else 0
            codes = bundle["code_objects"]
            extracted = unbundle(
                HIP_DIR / name, bundle["offset"], end, [c["entry_id"] for c in codes], tmp_path
            )
            for code, expected in zip(codes, extracted, strict=True):
                assert kpacks[code["target"]][f"lib/{name}#{ordinal}"] == expected, (name, code)
                checked += 1
    assert checked == sum(len(b["code_objects"]) for lib in FAT.values() for b in lib["bundles"])


def test_host_libraries_carry_a_load_reference(split: dict[str, Any], fat_wheel: Path) -> None:
    with zipfile.ZipFile(wheels(split["out"])[fat_wheel.name]) as zf:
        for name in FAT:
            data = zf.read(f"torch/lib/{name}")
            path = split["out"].parent / name
            path.write_bytes(data)
            with path.open("rb") as fh:
                elf = ELFFile(fh)
                ref = elf.get_section_by_name(".rocm_kpack_ref")
                assert ref is not None, name
                doc = msgpack.unpackb(ref.data())
                assert doc == {
                    "kernel_name": f"lib/{name}",
                    "kpack_search_paths": ["../.kpack/torch_@GFXARCH@.kpack"],
                }
        # The host-only library is copied unchanged.
        assert zf.read("torch/lib/libhost.so") == (HIP_DIR / "libhost.so").read_bytes()
        assert not any("aotriton.images/amd-" in n for n in zf.namelist())
        assert "torch/lib/rocblas/library/TensileLibrary_fallback.dat" in zf.namelist()
        metadata = zf.read("torch-2.10.0+rocm7.1.dist-info/METADATA").decode()
        assert "variant_properties" not in metadata


def test_variant_wheel(split: dict[str, Any], fat_wheel: Path) -> None:
    with zipfile.ZipFile(wheels(split["out"])[f"{fat_wheel.name[:-4]}-rocm.whl"]) as zf:
        variant = json.loads(zf.read("torch-2.10.0+rocm7.1.dist-info/variant.json"))
        metadata = zf.read("torch-2.10.0+rocm7.1.dist-info/METADATA").decode()
    assert list(variant["variants"]) == ["rocm"]
    assert "gfx1100" in variant["variants"]["rocm"]["amd"]["gfx_arch"]
    assert '"amd :: gfx_arch :: gfx1100" in variant_properties' in metadata


def test_report(split: dict[str, Any]) -> None:
    report = split["report"]
    schema = json.loads((REPO_ROOT / "docs" / "split-report.schema.json").read_text())
    jsonschema.validate(report, schema)  # the documented format is what we write
    rows = {row["target"]: row for row in report["downloads"]}
    assert rows["gfx1100"]["wheels"] == ["host", "gfx1100", "gfx110x", "gfx11"]
    assert rows["gfx942"]["wheels"] == ["host", "gfx942"]
    host = report["host"]["size"]
    device_sizes = {d["key"]: d["size"] for d in report["devices"]}
    assert rows["gfx1100"]["size"] == host + sum(
        device_sizes[k] for k in ("gfx1100", "gfx110x", "gfx11")
    )
    assert report["summary"]["fat_binaries"] == len(FAT)
    assert report["summary"]["db_files"] == sum(1 for k in DATABASE_FILES.values() if k)
    libs = {row["path"]: row for row in report["libraries"]}
    assert set(libs) == {f"lib/{n}" for n in FAT}
    assert libs["lib/libplain19.so"]["saved"] > 60_000  # a 75 KB .hip_fatbin, mostly removed
    gfx90a = next(d for d in report["devices"] if d["key"] == "gfx90a")
    assert [k["arch"] for k in gfx90a["kpacks"]] == ["gfx90a"]
    assert "| gfx1100 | host + gfx1100 + gfx110x + gfx11 |" in split["markdown"]


def test_directory_in_and_out_match_the_wheels(
    split: dict[str, Any], fat_wheel: Path, tmp_path: Path
) -> None:
    unpacked = tmp_path / "unpacked"
    with zipfile.ZipFile(fat_wheel) as zf:
        zf.extractall(unpacked)
    for member in (unpacked / "torch" / "lib").glob("*.so"):
        member.chmod(0o755)
    out = tmp_path / "out"
    result = run_main(split_args(unpacked, out, "--output-format", "directory"))
    assert result.returncode == 0, result.stderr
    for tree in out.iterdir():
        wheel = split["out"] / f"{tree.name}.whl"
        with zipfile.ZipFile(wheel) as zf:
            for name in zf.namelist():
                if not name.endswith("RECORD"):
                    assert (tree / name).read_bytes() == zf.read(name), name


def test_reproducible_across_job_counts(
    split: dict[str, Any], fat_wheel: Path, tmp_path: Path
) -> None:
    out = tmp_path / "again"
    args = split_args(fat_wheel, out, "-j", "1", "--generate-variant-wheel", "--variant-label")
    args += ["rocm", "--verify-bundle-hash"]  # checks more, changes nothing
    result = run_main(args)
    assert result.returncode == 0, result.stderr
    for name, path in wheels(out).items():
        assert path.read_bytes() == (split["out"] / name).read_bytes(), name


def test_uncompressed_kpacks_and_explicit_handlers(fat_wheel: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    args = split_args(fat_wheel, out, "--compression", "none", "--databases", "miopen")
    args += ["--extra-naming", "device", "--device-requires-dist", "rocm-sdk-device-@GFXARCH@"]
    result = run_main(args)
    assert result.returncode == 0, result.stderr
    gfx942 = next(p for p in out.iterdir() if p.name.startswith("amd_torch_device_gfx942-"))
    with zipfile.ZipFile(gfx942) as zf:
        names = zf.namelist()
        archive = parse_kpack(zf.read("torch/.kpack/torch_gfx942.kpack"))
        assert archive.compression_scheme == "none"
        info = zf.getinfo("torch/.kpack/torch_gfx942.kpack")
        assert info.compress_type == zipfile.ZIP_DEFLATED
        metadata = zf.read(next(n for n in names if n.endswith("METADATA"))).decode()
    # Only MIOpen files moved; the rocBLAS ones stayed in the host wheel.
    assert "torch/share/miopen/db/gfx942130.db.txt" in names
    assert not any("rocblas" in n for n in names)
    assert "Requires-Dist: rocm-sdk-device-gfx942" in metadata
    with zipfile.ZipFile(out / fat_wheel.name) as zf:
        host_meta = zf.read("torch-2.10.0+rocm7.1.dist-info/METADATA").decode()
        assert "torch/lib/rocblas/library/TensileLibrary_lazy_gfx942.dat" in zf.namelist()
    assert 'extra == "device-gfx1100"' in host_meta and "Provides-Extra: device-all" in host_meta


# --- rocm-kpack's loader rules (issue #13) ---------------------------------------------

LOADER_PROCESSORS = [
    "gfx906", "gfx908", "gfx90a", "gfx940", "gfx942", "gfx950", "gfx1030", "gfx1031",
    "gfx1100", "gfx1101", "gfx1151", "gfx1201",
]  # fmt: skip


def unpack(wheels_: list[Path], site: Path) -> Path:
    """What pip would install (a wheel is a zip; --target layout)."""
    for wheel in wheels_:
        with zipfile.ZipFile(wheel) as zf:
            zf.extractall(site)
    return site / "torch"


def co_indexes(library: Path) -> list[int]:
    """What CLR passes as co_index: the word at +16 of each HIPK wrapper."""
    with library.open("rb") as fh:
        raw = _section(ELFFile(fh), ".hipFatBinSegment").data()
    return [int.from_bytes(raw[i + 16 : i + 24], "little") for i in range(0, len(raw), 24)]


def manifest_digests(out: Path) -> dict[tuple[str, int, str], str]:
    """(library, bundle, target) -> sha256 of the code object, from the toolchain's manifest;
    for the generic objects clang-offload-bundler extracts wrongly (hipfx.BUNDLER_WRONG),
    from the kpack, whose bytes the e_flags tests check."""
    import hashlib

    from hipfx import BUNDLER_WRONG

    contents = kpack_contents(out)
    digests = {}
    for name, lib in FAT.items():
        for index, bundle in enumerate(lib["bundles"]):
            for code in bundle["code_objects"]:
                digest = code["sha256"]
                if (name, code["target"]) in BUNDLER_WRONG:
                    data = contents[code["target"]][f"lib/{name}#{index}"]
                    digest = hashlib.sha256(data).hexdigest()
                digests[(name, index, code["target"])] = digest
    return digests


def loader_failures(
    root: Path, agents: list[str], digests: dict[tuple[str, int, str], str]
) -> list[str]:
    """Per library wrapper and agent ISA: the loader must return a code object the fat
    binary would have run there, or nothing when the fat binary had none."""
    import hashlib

    from rocm.kpack_loader import arch_list, load_code_object, served

    failed = []
    for name, lib in FAT.items():
        binary = root / "lib" / name
        with binary.open("rb") as fh:
            meta = msgpack.unpackb(_section(ELFFile(fh), ".rocm_kpack_ref").data())
        for index in co_indexes(binary):
            codes = lib["bundles"][index]["code_objects"]
            for agent in agents:
                want = {
                    digests[(name, index, c["target"])] for c in codes if served(c["target"], agent)
                }
                got = load_code_object(meta, binary, index, arch_list(agent))
                digest = hashlib.sha256(got.data).hexdigest() if got.data else None
                if (digest not in want) if want else digest is not None:
                    failed.append(f"{agent} {name}#{index}: {got.status}")
    return failed


def test_loader_finds_every_served_kernel(split: dict[str, Any], tmp_path: Path) -> None:
    """Host + every device wheel: every agent ISA of every processor gets, for every
    library, a code object the fat binary served it (and none where it served none)."""
    from wheel_size.rocm.target_id import agent_isas

    plain = [p for n, p in wheels(split["out"]).items() if not n.endswith("-rocm.whl")]
    root = unpack(plain, tmp_path / "site")
    agents = [isa for proc in LOADER_PROCESSORS for isa in agent_isas(proc)]
    assert loader_failures(root, agents, manifest_digests(split["out"])) == []


def test_each_target_download_serves_its_agents(
    split: dict[str, Any], fat_wheel: Path, tmp_path: Path
) -> None:
    """What the report says an agent downloads (host + its target wheel's chain) is enough:
    the device wheel for a target holds what its agents need."""
    from wheel_size.rocm.target_id import agent_isas

    found = wheels(split["out"])
    by_key = {d["key"]: found[d["file"]] for d in split["report"]["devices"] if d["file"] in found}
    checked = 0
    digests = manifest_digests(split["out"])
    for row in split["report"]["downloads"]:
        target = row["target"]
        if target not in LOADER_PROCESSORS:
            continue
        chosen = [found[fat_wheel.name], *(by_key[k] for k in row["wheels"][1:])]
        root = unpack(chosen, tmp_path / target)
        assert loader_failures(root, agent_isas(target), digests) == [], target
        checked += 1
    assert checked >= 6


def test_old_layout_fails_the_loader(split: dict[str, Any], tmp_path: Path) -> None:
    """The same code objects, one archive per exact target-id (what the split wrote before,
    and AMD's splitter writes): MI300X- and MI200-style agents miss libraries."""
    from wheel_size.rocm.kpack import KpackWriter

    plain = [p for n, p in wheels(split["out"]).items() if not n.endswith("-rocm.whl")]
    root = unpack(plain, tmp_path / "site")
    contents = kpack_contents(split["out"])
    digests = manifest_digests(split["out"])
    shutil.rmtree(root / ".kpack")
    (root / ".kpack").mkdir()
    for name, lib in FAT.items():
        for index, bundle in enumerate(lib["bundles"]):
            for code in bundle["code_objects"]:
                target, key = code["target"], f"lib/{name}#{index}"
                path = root / ".kpack" / f"torch_{target}.kpack"
                old = (
                    {k: d for k, _a, d in parse_kpack(path.read_bytes()).iter_kernels()}
                    if (path.exists())
                    else {}
                )
                old[key] = contents[target][key]
                with KpackWriter(path, arch=target, group="torch") as w:
                    for k, data in old.items():
                        w.add(key=k, data=data)
    failed = loader_failures(root, ["gfx942:sramecc+:xnack-", "gfx90a:sramecc+:xnack-"], digests)
    assert "gfx942:sramecc+:xnack- libccob19.so#0: KERNEL_NOT_FOUND" in failed
    assert any(f.startswith("gfx90a:sramecc+:xnack- ") for f in failed)


def test_per_target_id_layout_for_older_runtimes(
    split: dict[str, Any], fat_wheel: Path, tmp_path: Path
) -> None:
    """``--kpack-layout per-target-id``: AMD's layout, one archive per target-id listing only
    that string (``torch_gfx90a:xnack+.kpack``), the same code objects byte for byte; the
    report names the trade-off."""
    out = tmp_path / "out"
    report = tmp_path / "r.md"
    result = run_main(
        [*split_args(fat_wheel, out, "--kpack-layout", "per-target-id"), "--report-md", str(report)]
    )
    assert result.returncode == 0, result.stderr
    ours = kpack_contents(split["out"])
    targets = {
        t
        for lib in FAT.values()
        for b in lib["bundles"]
        for t in (c["target"] for c in b["code_objects"])
    }
    seen = set()
    for path in out.iterdir():
        if not path.name.startswith(wheel_escape(PREFIX)):
            continue
        with zipfile.ZipFile(path) as zf:
            for name in zf.namelist():
                if not name.startswith("torch/.kpack/"):
                    continue
                target = name[len("torch/.kpack/torch_") : -len(".kpack")]
                archive = parse_kpack(zf.read(name), name)
                assert archive.gfx_arches == [target] and archive.gfx_arch_family == target
                for key, arch, data in archive.iter_kernels():
                    assert arch == target and data == ours[target][key]
                seen.add(target)
    assert seen == targets
    assert "one archive per target-id" in report.read_text()
    # the dry run plans the same archives
    planned = run_main(
        [
            *split_args(fat_wheel, tmp_path / "dry", "--kpack-layout", "per-target-id"),
            *("--dry-run", "--format", "json"),
        ]
    )
    assert planned.returncode == 0, planned.stderr
    members = {k["member"] for d in json.loads(planned.stdout)["devices"] for k in d["kpacks"]}
    assert members == {f"torch/.kpack/torch_{t}.kpack" for t in targets}


def test_kpack_members_no_larger_than_zlib_6(split: dict[str, Any]) -> None:
    """Every kpack of every device wheel is no larger in its wheel than zlib level 6 would
    make it, within the line a full pass must clear (issue #20: device wheels as the host's
    rewritten members; issue #30: a pass runs only where it saves 1 % and 64 KiB), and
    never larger than its own bytes."""
    import zlib

    from wheel_size.split.deflate_probe import worth_a_pass

    checked = 0
    for path in split["out"].iterdir():
        if not path.name.startswith(wheel_escape(PREFIX)):
            continue
        with zipfile.ZipFile(path) as zf:
            for info in zf.infolist():
                if info.filename.endswith(".kpack"):
                    data = zf.read(info)
                    deflate = zlib.compressobj(6, zlib.DEFLATED, -15)
                    zlib6 = len(deflate.compress(data) + deflate.flush())
                    assert not worth_a_pass(info.compress_size - zlib6, len(data))
                    assert info.compress_size <= len(data)
                    checked += 1
    assert checked >= 10
