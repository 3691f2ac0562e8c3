"""``wheel-size split --dry-run`` on the fat wheel of real clang HIP libraries: it writes nothing
(no output directory, no temporary files left, no reports), and what it prints is what the real
split then does: the same wheel names, archives, database routing and library sizes."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any

import pytest

from cli_runner import run_main
from fatwheel import DATABASE_FILES, build_fat_wheel, build_stub_wheel

PREFIX = "amd-torch-device"


def split_args(wheel: Path, out: Path, *extra: str) -> list[str]:
    return [
        "split", "--input", str(wheel), "--output-dir", str(out), "--device-package-prefix",
        PREFIX, "--overlay-root", "torch/", "--wheel-type", "torch-fat", *extra,
    ]  # fmt: skip


def tree(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*")}


@pytest.fixture(scope="module")
def fat_wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_fat_wheel(tmp_path_factory.mktemp("in"))


@pytest.fixture(scope="module")
def planned(fat_wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The JSON plan, run with TMPDIR pointing at an empty directory to see what is left."""
    base = tmp_path_factory.mktemp("dry")
    tmp = base / "tmp"
    tmp.mkdir()
    before = tree(fat_wheel.parent)
    args = split_args(fat_wheel, base / "out", "-j", "2", "--compression", "none")
    result = run_main([*args, "--dry-run", "--format", "json"], env={"TMPDIR": str(tmp)})
    assert result.returncode == 0, result.stderr
    assert not (base / "out").exists()
    assert tree(fat_wheel.parent) == before
    assert tree(tmp) == set()
    return {"plan": json.loads(result.stdout), "stderr": result.stderr}


@pytest.fixture(scope="module")
def real(fat_wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    out = tmp_path_factory.mktemp("real") / "out"
    result = run_main(split_args(fat_wheel, out, "-j", "2", "--compression", "none"))
    assert result.returncode == 0, result.stderr
    wheels = {}
    for path in sorted(out.iterdir()):
        with zipfile.ZipFile(path) as zf:
            wheels[path.name] = {i.filename: i.file_size for i in zf.infolist()}
    return {"wheels": wheels, "stderr": result.stderr}


def test_same_wheel_names(planned: dict[str, Any], real: dict[str, Any]) -> None:
    plan = planned["plan"]
    names = {plan["host"]["file"], *(d["file"] for d in plan["devices"])}
    assert names == set(real["wheels"])


def test_same_archives_and_sizes(planned: dict[str, Any], real: dict[str, Any]) -> None:
    for device in planned["plan"]["devices"]:
        members = real["wheels"][device["file"]]
        kpacks = {name: size for name, size in members.items() if "/.kpack/" in name}
        assert set(kpacks) == {k["member"] for k in device["kpacks"]}
        for kpack in device["kpacks"]:
            # --compression none: the code objects plus the archive's table of contents
            assert kpack["size"] <= kpacks[kpack["member"]] <= kpack["size"] + 4096
        routed = {db["member"]: db["size"] for db in device["db_files"]}
        assert routed == {n: s for n, s in members.items() if n in routed}
        assert set(routed) == {n for n in members if "/.kpack/" not in n and ".dist-info/" not in n}


def test_database_routing_matches(planned: dict[str, Any], real: dict[str, Any]) -> None:
    plan = planned["plan"]
    for db in plan["databases"]:
        assert db["member"] in real["wheels"][db["wheel"]]
        assert db["member"] not in real["wheels"][plan["host"]["file"]]
    moved = {f"torch/{path}" for path, key in DATABASE_FILES.items() if key is not None}
    assert {db["member"] for db in plan["databases"]} == moved


def test_library_sizes_are_exact(planned: dict[str, Any], real: dict[str, Any]) -> None:
    """What the host rewrite will cut is planned to the byte."""
    plan = planned["plan"]
    host = real["wheels"][plan["host"]["file"]]
    fat = [lib for lib in plan["libraries"] if lib["fat"]]
    assert fat and all(lib["cut"] > 0 for lib in fat)
    for lib in plan["libraries"]:
        expected = lib["size_after"] if lib["fat"] else lib["size"]
        assert host[lib["member"]] == expected
        if lib["fat"]:
            assert sum(t["size"] for t in lib["targets"]) == sum(
                c["size"] for c in lib["code_objects"]
            )
    totals = plan["totals"]
    assert totals["fat_libraries"] == len(fat)
    assert totals["code_objects"] == sum(len(lib["code_objects"]) for lib in fat)
    assert totals["kpacks"] == sum(len(d["kpacks"]) for d in plan["devices"])


def test_warnings_match_and_print_once(planned: dict[str, Any], real: dict[str, Any]) -> None:
    warnings = planned["plan"]["warnings"]
    assert any("'gfx803'" in w for w in warnings)  # a database arch the hierarchy lacks
    for stderr in (planned["stderr"], real["stderr"]):
        printed = [line for line in stderr.splitlines() if line.startswith("wheel-size: warning")]
        assert printed == [f"wheel-size: warning: {w}" for w in warnings]


def test_text_plan(fat_wheel: Path, tmp_path: Path) -> None:
    result = run_main([*split_args(fat_wheel, tmp_path / "out"), "--dry-run", "--verbose"])
    assert result.returncode == 0, result.stderr
    text = result.stdout
    assert "nothing was written" in text
    assert "torch/lib/libhost.so" in text and "no device code" in text
    assert "the host rewrite cuts" in text
    assert (
        f"torch/lib/rocblas/library/TensileLibrary_gfx803.co -> {PREFIX.replace('-', '_')}" in text
    )
    assert "amd_torch_device_gfx1100-2.10.0+rocm7.1-" in text
    assert "torch/.kpack/torch_gfx1100.kpack" in text
    assert not (tmp_path / "out").exists()


def test_tmp_dir_it_creates_is_removed(fat_wheel: Path, tmp_path: Path) -> None:
    scratch = tmp_path / "a" / "b"
    args = [*split_args(fat_wheel, tmp_path / "out"), "--dry-run", "--tmp-dir", str(scratch)]
    result = run_main(args)
    assert result.returncode == 0, result.stderr
    assert tree(tmp_path) == set()


@pytest.mark.parametrize(
    "extra",
    [
        ["--report-json", "r.json"],
        ["--report-md", "r.md"],
        ["--comment-pr", "3", "--repository", "o/n"],
    ],
)
def test_dry_run_refuses_outputs(fat_wheel: Path, tmp_path: Path, extra: list[str]) -> None:
    result = run_main([*split_args(fat_wheel, tmp_path / "out"), "--dry-run", *extra], cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr.splitlines() == [
        f"wheel-size: error: {extra[0]}: --dry-run writes and posts nothing; drop one of them"
    ]
    assert tree(tmp_path) == set()


def test_format_needs_dry_run(fat_wheel: Path, tmp_path: Path) -> None:
    result = run_main([*split_args(fat_wheel, tmp_path / "out"), "--format", "json"])
    assert result.returncode == 2
    assert result.stderr == "wheel-size: error: --format applies to --dry-run only\n"
    assert tree(tmp_path) == set()


def test_bad_input_same_error_as_a_split(tmp_path: Path) -> None:
    """A wheel without device code: the dry run refuses it as the split does, writing nothing."""
    (tmp_path / "in").mkdir()
    wheel = build_stub_wheel(tmp_path / "in", "torch")
    out = tmp_path / "out"
    dry = run_main([*split_args(wheel, out), "--dry-run"])
    real = run_main(split_args(wheel, out))
    assert dry.returncode == real.returncode == 2
    assert dry.stderr.splitlines()[-1] == real.stderr.splitlines()[-1]
    assert dry.stderr.splitlines()[-1].startswith("wheel-size: error: ")
    assert tree(tmp_path) == {"in", f"in/{wheel.name}"}


def test_output_dir_holding_a_split_is_refused(fat_wheel: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / fat_wheel.name).write_bytes(b"")
    result = run_main([*split_args(fat_wheel, out), "--dry-run"])
    assert result.returncode == 2
    assert "already holds a split" in result.stderr
    assert tree(out) == {fat_wheel.name}


def test_windows_wheel_plan_matches_its_split(tmp_path: Path) -> None:
    """The same promise for HIP DLLs (PE/COFF): names, archives, rewritten sizes."""
    from fatwheel_pe import build_fat_windows_wheel

    wheel = build_fat_windows_wheel(tmp_path / "in")
    out = tmp_path / "out"
    dry = run_main(
        [*split_args(wheel, out, "--compression", "none"), "--dry-run", "--format", "json"]
    )
    assert dry.returncode == 0, dry.stderr
    assert not out.exists()
    plan = json.loads(dry.stdout)
    real = run_main(split_args(wheel, out, "--compression", "none"))
    assert real.returncode == 0, real.stderr
    assert {p.name for p in out.iterdir()} == {
        plan["host"]["file"],
        *(d["file"] for d in plan["devices"]),
    }
    with zipfile.ZipFile(out / plan["host"]["file"]) as zf:
        host = {i.filename: i.file_size for i in zf.infolist()}
    fat = [lib for lib in plan["libraries"] if lib["fat"]]
    assert fat and {lib["format"] for lib in fat} == {"pe"}
    for lib in fat:
        assert host[lib["member"]] == lib["size_after"] < lib["size"]
    for device in plan["devices"]:
        with zipfile.ZipFile(out / device["file"]) as zf:
            sizes = {i.filename: i.file_size for i in zf.infolist()}
        for kpack in device["kpacks"]:
            assert kpack["size"] <= sizes[kpack["member"]] <= kpack["size"] + 4096
