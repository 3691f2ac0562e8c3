"""``wheel-size diff --by kernel|family|symbol`` on wheels of the kernel fixtures: the planted
additions, removals and growth are reported exactly, per architecture and summed."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from cli_runner import run_main
from fatwheel import write_wheel
from kernelfx import ADDED, DUPLICATE, GROWN, REMOVED, kernel_wheel, library, manifest
from wheel_size.diff.by_model import ByDiff
from wheel_size.diff.by_run import diff_inputs_by
from wheel_size.diff.jobs import MAX_DEFAULT, default_jobs
from wheel_size.kernels.bloat import find_bloat
from wheel_size.kernels.demangle import demangle

SCHEMA = json.loads(
    (Path(__file__).resolve().parents[2] / "docs" / "diff-format.schema.json").read_text()
)
PAIRS = {
    "cuda": ("libkern_v1.so", "libkern_v2.so"),  # raw SASS -> zstd
    "cuda-lz4": ("libkern_v1.so", "libkern_v2_lz4.so"),
    "hip": ("libhkern_v1.so", "libhkern_v2.so"),  # plain bundle -> CCOB
}


def _wheels(tmp_path: Path, old: str, new: str) -> tuple[Path, Path]:
    a = kernel_wheel(tmp_path / "a", "1.0", {"kern/libkern.so": old})
    b = kernel_wheel(tmp_path / "b", "2.0", {"kern/libkern.so": new})
    return a, b


def _expected_deltas(old: str, new: str) -> dict[str, dict[str, int]]:
    """arch -> demangled name -> byte change, from the compilers' code objects."""
    libs = manifest()["libraries"]
    out: dict[str, dict[str, int]] = {}
    for arch in libs[old]["functions"].keys() | libs[new]["functions"].keys():
        if arch.startswith("compute_"):
            continue  # PTX sizes are text spans, not in the manifest
        a = libs[old]["functions"].get(arch, {})
        b = libs[new]["functions"].get(arch, {})
        for name in a.keys() | b.keys():
            delta = b.get(name, [0])[0] - a.get(name, [0])[0]
            if delta:
                out.setdefault(arch, {})[demangle(name).text] = delta
    return out


@pytest.mark.parametrize("pair", sorted(PAIRS))
def test_planted_kernels_are_reported_exactly(tmp_path: Path, pair: str) -> None:
    a, b = _wheels(tmp_path, *PAIRS[pair])
    report = diff_inputs_by(a, b, by="kernel", top=50)
    [diff] = report.comparisons
    assert diff.problems == []
    status = {r.name: r.status for r in diff.summed.rows}
    assert {n for n, s in status.items() if s == "added"} == ADDED
    assert {n for n, s in status.items() if s == "removed"} == REMOVED
    assert {n for n, s in status.items() if s == "grown"} == GROWN
    assert set(status) == ADDED | REMOVED | GROWN  # nothing else changed
    want = _expected_deltas(*PAIRS[pair])
    got = {
        t.arch: {r.name: r.delta for r in t.rows}
        for t in diff.archs
        if not t.arch.startswith("compute_") and t.rows
    }
    assert got == want
    for table in [*diff.archs, diff.summed]:
        shown = sum(r.delta for r in table.rows) + table.rest_delta
        attributed = table.new_total - table.new_unattributed - table.old_total
        assert shown == attributed + table.old_unattributed  # totals add up


def _family(diff: ByDiff, name: str) -> tuple[int, int, int]:
    [row] = [r for r in diff.summed.rows if r.name == name]
    return row.added, row.removed, len(row.archs)


@pytest.mark.parametrize("pair", ["cuda", "hip"])
def test_family_counts_instantiations_per_architecture(tmp_path: Path, pair: str) -> None:
    a, b = _wheels(tmp_path, *PAIRS[pair])
    [diff] = diff_inputs_by(a, b, by="family", top=10).comparisons
    # sm_80, sm_90 (compute_90's PTX is summed apart) / gfx942, gfx1100, gfx1151
    archs = 2 if pair == "cuda" else 3
    assert _family(diff, "scale_kernel<…>") == (2, 1, archs)
    assert {r.name for r in diff.summed.rows} == {"scale_kernel<…>", "grow_kernel<…>"}


def test_cli_json_follows_the_schema_and_text_names_families(tmp_path: Path) -> None:
    a, b = _wheels(tmp_path, *PAIRS["hip"])
    result = run_main(["diff", "--by", "family", "--format", "json", str(a), str(b)])
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    jsonschema.validate(data, SCHEMA)
    assert data["by"] == "family"
    text = run_main(["diff", "--by", "family", str(a), str(b)])
    assert text.returncode == 0, text.stderr
    assert "2 new instantiations of `scale_kernel<…>` × 3 gfx architectures = +" in text.stdout, (
        text.stdout
    )
    kernels = run_main(["diff", "--by", "kernel", "--top", "1", str(a), str(b)])
    assert "more |" in kernels.stdout  # the rest summarised


def test_symbol_view_adds_up_per_section(tmp_path: Path) -> None:
    a, b = _wheels(tmp_path, *PAIRS["cuda"])
    [diff] = diff_inputs_by(a, b, by="symbol", top=100).comparisons
    text = {t.arch: t for t in diff.archs}[".text"]
    names = {r.name for r in text.rows}
    assert any("scale_kernel<int, 2>" in n for n in names)  # the host launch stub
    for table in diff.archs:
        change = sum(r.delta for r in table.rows) + table.rest_delta
        unattributed = table.new_unattributed - table.old_unattributed
        assert change + unattributed == table.new_total - table.old_total


def test_unknown_by_is_one_line(tmp_path: Path) -> None:
    a, b = _wheels(tmp_path, *PAIRS["cuda"])
    result = run_main(["diff", "--by", "bogus", str(a), str(b)])
    assert result.returncode != 0
    assert "bogus" in result.stderr


def test_jobs_changes_the_workers_not_the_answer(tmp_path: Path) -> None:
    a, b = _wheels(tmp_path, *PAIRS["cuda"])
    answers = {
        jobs: run_main(["diff", "--by", "family", "--format", "json", "-j", jobs, str(a), str(b)])
        for jobs in ("1", "3")
    }
    assert all(r.returncode == 0 for r in answers.values()), answers
    assert answers["1"].stdout == answers["3"].stdout
    zero = run_main(["diff", "--by", "family", "--jobs", "0", str(a), str(b)])
    assert zero.returncode != 0
    assert zero.stderr.strip().splitlines() == ["wheel-size: error: --jobs 0: must be at least 1"]


def test_default_jobs_follow_the_usable_cores_up_to_the_cap() -> None:
    assert default_jobs(1) == 1
    assert default_jobs(2) == 2
    assert default_jobs(64) == MAX_DEFAULT


@pytest.mark.parametrize(("old", "new"), [("v1", "twin"), ("twin", "v1")])
def test_an_architecture_that_comes_or_goes_adds_or_removes_no_instantiation(
    tmp_path: Path, old: str, new: str
) -> None:
    """xformers 0.0.30 -> 0.0.31 dropped sm_60/sm_70: the diff said "20 instantiations of
    `sparse24_…<…>` removed" while all 20 still ship for sm_75/80/90a. An instantiation is a
    name; one that every side holds in some architecture is neither new nor removed, however
    the architectures holding it change (libkern_twin.so is libkern_v1.so plus sm_90a)."""
    names = {"v1": "libkern_v1.so", "twin": "libkern_twin.so"}
    a = kernel_wheel(tmp_path / "a", "1.0", {"kern/libkern.so": names[old]})
    b = kernel_wheel(tmp_path / "b", "2.0", {"kern/libkern.so": names[new]})
    [diff] = diff_inputs_by(a, b, by="family", top=10).comparisons
    assert diff.summed.rows
    for row in diff.summed.rows:
        assert (row.added, row.removed) == (0, 0), row
        assert row.old_count == row.new_count
        assert row.archs == ["sm_90a"]
    text = run_main(["diff", "--by", "family", str(a), str(b)]).stdout
    assert "new instantiation" not in text and "removed ×" not in text, text


def test_summed_totals_cover_every_architecture_of_the_compared_libraries(
    tmp_path: Path,
) -> None:
    """cupy-cuda12x 13.5.1 -> 13.6.0 rebuilt three libraries with 375 MB of identical device
    code; the summed line read "0 B → 0 B (±0 B)", as if they held none. The summed totals are
    the compared libraries' code in every architecture, changed or not."""
    lib = library("libkern_v1.so").read_bytes()
    a = write_wheel(
        tmp_path / "kern-1.0-cp311-cp311-linux_x86_64.whl", [("kern/libk.so", lib, 0o755)]
    )
    b = write_wheel(
        tmp_path / "kern-2.0-cp311-cp311-linux_x86_64.whl",
        [("kern/libk.so", lib + b"\0" * 16, 0o755)],  # the host part changed, no kernel did
    )
    [diff] = diff_inputs_by(a, b, by="family", top=10).comparisons
    assert not diff.summed.rows and not diff.archs
    assert diff.summed.old_total == diff.summed.new_total > 0
    text = run_main(["diff", "--by", "family", str(a), str(b)]).stdout
    assert "0 B → 0 B" not in text, text


def test_summed_code_objects_leave_ptx_to_its_own_total(tmp_path: Path) -> None:
    """Issue 30: the summed table adds up SASS only, as ``cuobjdump -lelf`` lists it; the
    embedded PTX (compute_90) has its own summed table, as ``-lptx`` lists it apart. Every
    row and table carries its ``delta_bytes``."""
    a, b = _wheels(tmp_path, *PAIRS["cuda"])
    [diff] = diff_inputs_by(a, b, by="kernel", top=50).comparisons
    sass = [t for t in diff.archs if t.arch.startswith("sm_")]
    ptx = [t for t in diff.archs if t.arch.startswith("compute_")]
    assert sass and ptx
    assert diff.summed.new_total == sum(t.new_total for t in sass)
    assert diff.summed.old_total == sum(t.old_total for t in sass)
    assert diff.summed_ptx.arch == "ptx"
    assert diff.summed_ptx.new_total == sum(t.new_total for t in ptx)
    assert all(arch.startswith("sm_") for r in diff.summed.rows for arch in r.archs)
    assert all(arch.startswith("compute_") for r in diff.summed_ptx.rows for arch in r.archs)
    doc = diff.to_json()
    for table in [*doc["archs"], doc["summed"], doc["summed_ptx"]]:
        assert table["delta_bytes"] == table["new_total"] - table["old_total"]
        shown = sum(r["delta_bytes"] for r in table["rows"]) + table["rest"]["delta"]
        moved = table["delta_bytes"] - (table["new_unattributed"] - table["old_unattributed"])
        assert shown == moved
        for row in table["rows"]:
            assert row["delta_bytes"] == row["new_bytes"] - row["old_bytes"]


def test_by_kernel_marks_identical_copies_as_bloat_finds_them(tmp_path: Path) -> None:
    """Issue 30: a kernel present in two identical copies in one architecture of one
    library (two translation units) is marked on its ``--by kernel`` row with the bytes
    ``bloat`` says dropping the extra copy saves."""
    a = kernel_wheel(tmp_path / "a", "1.0", {"kern/libkern.so": "libkern_v1.so"})
    b = kernel_wheel(tmp_path / "b", "2.0", {"kern/libkern.so": "libkern_twin.so"})
    [diff] = diff_inputs_by(a, b, by="kernel", top=500).comparisons
    bloat = find_bloat(b)
    want = {
        (d.arch, d.name): (d.copies, d.saving)
        for d in bloat.duplicates
        if not d.arch.startswith("compute_")
    }
    assert want and {name for _arch, name in want} == {DUPLICATE}
    rows = {
        (t.arch, r.name): (r.new_identical_copies, r.new_duplicate_bytes)
        for t in diff.archs
        for r in t.rows
    }
    marked = {key: value for key, value in rows.items() if value[0] > 1}
    # a changed row is marked exactly where bloat finds the copies (the old wheel had the
    # copies too in some architectures: no row there, the table's total still counts them)
    assert marked and marked == {key: want[key] for key in rows.keys() & want.keys()}
    for table in diff.archs:
        assert table.new_duplicate_bytes == sum(
            saving for (arch, _n), (_c, saving) in want.items() if arch == table.arch
        )
    assert diff.summed.new_duplicate_bytes == sum(saving for _c, saving in want.values())
    [family] = diff_inputs_by(a, b, by="family", top=500).comparisons
    assert family.summed.new_duplicate_bytes == 0  # families do not hash functions
