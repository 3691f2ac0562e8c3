"""``wheel-size diff`` on real wheels holding real nvcc-built libraries."""

from __future__ import annotations

import json
import shutil
import zipfile
from pathlib import Path

import jsonschema
import pytest

from cli_runner import run_main
from wheel_factory import make_artifact, make_wheel
from wheel_size.cuda.library import scan_cuda_sections

CUDA = Path(__file__).resolve().parents[1] / "data" / "cuda"
SCHEMA = json.loads(
    (Path(__file__).resolve().parents[2] / "docs" / "diff-format.schema.json").read_text()
)


@pytest.fixture(scope="module")
def nightly_pair(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    tmp = tmp_path_factory.mktemp("nightly")
    (tmp / "old").mkdir()
    (tmp / "new").mkdir()
    common = {"pkg/__init__.py": b"x = 1\n", "pkg/data.txt": b"same\n" * 100}
    old = make_wheel(
        tmp / "old",
        "pkg",
        "1.0.dev20260101+cu130",
        "cp310-abi3-manylinux_2_28_x86_64",
        {**common, "pkg/lib/libk.so": CUDA / "libk_v1.so", "pkg/gone.py": b"old = True\n"},
    )
    new = make_wheel(
        tmp / "new",
        "pkg",
        "1.0.dev20260102+cu130",
        "cp310-abi3-manylinux_2_28_x86_64",
        {**common, "pkg/lib/libk.so": CUDA / "libk_v2.so", "pkg/added.py": b"new = True\n" * 50},
    )
    return old, new


def _json(old: Path, new: Path, *extra: str) -> dict[str, object]:
    result = run_main(["diff", str(old), str(new), "--format", "json", *extra])
    assert result.returncode == 0, result.stderr
    data: dict[str, object] = json.loads(result.stdout)
    jsonschema.validate(data, SCHEMA)  # docs/diff-format.schema.json describes what we print
    return data


def _entries(path: Path) -> list[tuple[str, str, str, int, int]]:
    with path.open("rb") as stream:
        return [
            (c.section, c.entry.arch, c.entry.image, c.entry.stored_size,
             c.entry.header_size + c.entry.uncompressed_size)
            for c in scan_cuda_sections(stream, source=str(path))
        ]  # fmt: skip


def test_json_fields_and_gpu_breakdown(nightly_pair: tuple[Path, Path]) -> None:
    old, new = nightly_pair
    data = _json(old, new)
    assert data["old"] == str(old) and data["new"] == str(new)
    total = data["total"]
    assert total["old_bytes"] == old.stat().st_size  # type: ignore[index]
    assert total["new_bytes"] == new.stat().st_size  # type: ignore[index]
    files = {f["path"]: f for f in data["files"]}  # type: ignore[attr-defined]
    assert files["pkg/added.py"]["status"] == "added"
    assert files["pkg/gone.py"]["status"] == "removed"
    assert "pkg/__init__.py" not in files and "pkg/data.txt" not in files
    # the dist-info directory changes name with the version; RECORD is matched across it
    assert "pkg-1.0.dev20260102+cu130.dist-info/RECORD" in files
    lib = files["pkg/lib/libk.so"]
    assert lib["status"] == "changed"
    assert lib["old_installed"] == (CUDA / "libk_v1.so").stat().st_size
    assert lib["new_installed"] == (CUDA / "libk_v2.so").stat().st_size
    sections = {s["name"]: s for s in lib["sections"]}
    assert ".nv_fatbin" in sections
    # per-arch numbers add up to the entries as scanned, independently, from the libraries
    for side, path in (("old", CUDA / "libk_v1.so"), ("new", CUDA / "libk_v2.so")):
        want: dict[tuple[str, str, str], list[int]] = {}
        for section, arch, image, stored, unc in _entries(path):
            slot = want.setdefault((section, arch, image), [0, 0])
            slot[0] += stored
            slot[1] += unc
        got = {
            (g["section"], g["arch"], g["image"]): [g[f"{side}_bytes"], g[f"{side}_uncompressed"]]
            for g in lib["gpu"]
            if g[f"{side}_entries"]
        }
        assert got == want
    gpu = {(g["arch"], g["image"]): g for g in lib["gpu"]}
    assert gpu[("sm_100", "sass")]["old_bytes"] == 0
    assert gpu[("sm_100", "sass")]["new_compression"] == ["zstd"]
    assert gpu[("sm_100", "ptx")]["kind"] == "cuda"
    assert gpu[("sm_80", "ptx")]["new_bytes"] == 0  # compute_80 PTX was dropped
    # largest change first
    deltas = [abs(f["new_installed"] - f["old_installed"]) for f in data["files"]]  # type: ignore[attr-defined]
    assert deltas == sorted(deltas, reverse=True)


def test_markdown_summary_line(nightly_pair: tuple[Path, Path]) -> None:
    old, new = nightly_pair
    result = run_main(["diff", str(old), str(new)])
    assert result.returncode == 0, result.stderr
    first = result.stdout.splitlines()[0]
    assert "add/remove: 1/1 grow/shrink:" in first
    assert "| cuda `.nv_fatbin` | sm_100 [NEW] | sass |" in result.stdout
    assert "compute_100" in result.stdout


def test_artifacts_with_several_wheels_pair_by_name(
    nightly_pair: tuple[Path, Path], tmp_path: Path
) -> None:
    old, new = nightly_pair
    pure_old = make_wheel(tmp_path, "other", "2.0.dev1", files={"other/a.py": b"a"})
    (tmp_path / "n").mkdir()
    pure_new = make_wheel(tmp_path / "n", "other", "2.0.dev2", files={"other/a.py": b"ab"})
    lone = make_wheel(tmp_path / "n", "third", "1.0", files={"third/a.py": b"a"})
    art_old = make_artifact(tmp_path / "old.zip", [old, pure_old])
    art_new = make_artifact(tmp_path / "new.zip", [pure_new, new, lone])
    data = _json(art_old, art_new)
    pairs = {(c["old"].split("!")[1], c["new"].split("!")[1]) for c in data["comparisons"]}  # type: ignore[attr-defined]
    assert pairs == {(old.name, new.name), (pure_old.name, pure_new.name)}
    assert data["unpaired_new"] == [f"{art_new}!{lone.name}"]


def test_wheel_without_record_still_compares(tmp_path: Path) -> None:
    old = make_wheel(tmp_path, "p", "1.0", files={"p/a.py": b"a", "p/b.py": b"b"}, record=False)
    (tmp_path / "n").mkdir()
    new = make_wheel(tmp_path / "n", "p", "1.1", files={"p/a.py": b"a", "p/b.py": b"bb"})
    result = run_main(["diff", str(old), str(new), "--format", "json"])
    assert result.returncode == 0
    assert "no RECORD; comparing by CRC-32 and size" in result.stderr
    data = json.loads(result.stdout)
    paths = (
        {f["path"] for f in data["comparisons"][0]["files"]}
        if "comparisons" in data
        else {f["path"] for f in data["files"]}
    )
    assert "p/b.py" in paths and "p/a.py" not in paths


def _unpack(wheel: Path, dest: Path, *, record: bool) -> Path:
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(dest)
    if not record:
        for path in dest.glob("*.dist-info/RECORD"):
            path.unlink()
    return dest


@pytest.mark.parametrize("record", [True, False])
def test_unpacked_wheels_compare_by_content(record: bool, tmp_path: Path) -> None:
    """Unpacked wheel directories (as docs/diff-format.md promises); without RECORD, files of
    equal size are told apart by their bytes, not all reported as changed."""
    files: dict[str, bytes | Path] = {
        "p/a.py": b"a" * 1000,
        "p/b.py": b"b" * 1000,
        "p/libk.so": CUDA / "libk_v1.so",
    }
    old = make_wheel(tmp_path, "p", "1.0", files=files)
    (tmp_path / "n").mkdir()
    new = make_wheel(
        tmp_path / "n",
        "p",
        "1.1",
        files={**files, "p/b.py": b"c" * 1000},  # same size
    )
    old_dir = _unpack(old, tmp_path / "old", record=record)
    new_dir = _unpack(new, tmp_path / "new", record=record)
    result = run_main(["diff", str(old_dir), str(new_dir), "--format", "json"])
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["old"] == str(old_dir) and data["new"] == str(new_dir)
    changed = {f["path"]: f["status"] for f in data["files"] if f["path"].startswith("p/")}
    assert changed == {"p/b.py": "changed"}  # a.py and libk.so are the same bytes
    assert ("no RECORD; comparing by contents" in result.stderr) is not record


def test_corrupt_fatbin_is_reported_not_fatal(tmp_path: Path) -> None:
    broken = tmp_path / "libk_broken.so"
    data = bytearray((CUDA / "libk_v1.so").read_bytes())
    at = data.index(b"\x50\xed\x55\xba")
    data[at + 8 : at + 16] = (1 << 40).to_bytes(8, "little")  # container fat size
    broken.write_bytes(bytes(data))
    old = make_wheel(tmp_path, "p", "1.0", files={"p/libk.so": CUDA / "libk_v1.so"})
    (tmp_path / "n").mkdir()
    new = make_wheel(tmp_path / "n", "p", "1.1", files={"p/libk.so": broken})
    result = run_main(["diff", str(old), str(new), "--format", "json"])
    assert result.returncode == 0, result.stderr
    (lib,) = [f for f in json.loads(result.stdout)["files"] if f["path"] == "p/libk.so"]
    assert any("truncated fatbin" in p for p in lib["problems"])


@pytest.mark.parametrize("kind", ["text", "zip-without-wheels", "truncated"])
def test_bad_inputs_fail_with_one_line(kind: str, tmp_path: Path) -> None:
    good = make_wheel(tmp_path, "p", "1.0", files={"p/a.py": b"a"})
    bad = tmp_path / "bad.whl"
    if kind == "text":
        bad.write_text("not a zip")
    elif kind == "zip-without-wheels":
        with zipfile.ZipFile(bad, "w") as archive:
            archive.writestr("readme.txt", "hello")
    else:
        shutil.copy(good, bad)
        bad.write_bytes(bad.read_bytes()[:100])
    result = run_main(["diff", str(good), str(bad)])
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("wheel-size: error:")
    assert str(bad) in lines[0]
    assert result.stdout == ""
