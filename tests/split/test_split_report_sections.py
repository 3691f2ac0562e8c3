"""The split report has every section of the seed's report (``rocm-wheel-split-report.md``):
phase timings, the key-result sentence with component sizes, per-library extraction figures,
notes, METADATA, installation and layout; and database-only architectures are listed apart,
never as GPUs with savings.

The seed's sections render from a saved JSON (``tests/data/split/seed-report.json``, the seed's
own numbers); the rest checks the report of a real split of the clang-built fat wheel.
"""

from __future__ import annotations

import copy
import json
import re
import zipfile
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from cli_runner import run_main
from conftest import REPO_ROOT
from fatwheel import HIP_DIR, build_fat_wheel
from wheel_size.split.comment import render_comment
from wheel_size.split.names import normalize_arch
from wheel_size.split.report import render_split_report, split_report_json

SEED = REPO_ROOT / "tests" / "data" / "split" / "seed-report.json"
SCHEMA = json.loads((REPO_ROOT / "docs" / "split-report.schema.json").read_text())
MANIFEST = json.loads((HIP_DIR / "manifest.json").read_text())["libraries"]
NUMBER = r"[\d,]+\.\d MB"


def seed() -> Any:  # a saved JSON document, checked against the schema by the tests
    return json.loads(SEED.read_text())


def section(markdown: str, heading: str) -> str:
    """The text under ``#### heading`` up to the next heading."""
    start = markdown.index(f"#### {heading}\n")
    end = markdown.find("\n#### ", start + 1)
    return markdown[start : end if end >= 0 else None]


# --- the seed's sections, from the saved JSON --------------------------------------------------


def test_saved_seed_report_is_valid() -> None:
    report = seed()
    jsonschema.validate(report, SCHEMA)
    for row in report["downloads"]:
        assert row["size"] == sum(part["size"] for part in row["parts"])
        assert row["wheels"] == [part["wheel"] for part in row["parts"]]


def test_key_result_sentence_names_every_component() -> None:
    markdown = render_split_report(seed())
    first = re.search(
        rf"A user installing for gfx1100 downloads ({NUMBER}) \(host\) \+ ({NUMBER}) \(gfx1100\) "
        rf"\+ ({NUMBER}) \(gfx11 family\) = ({NUMBER}) instead of ({NUMBER}) \(78% saved\)\.",
        markdown,
    )
    assert first, markdown[:2000]
    host, target, family, total, _ = (float(g[:-3].replace(",", "")) for g in first.groups())
    assert abs(host + target + family - total) <= 0.15  # each part is rounded on its own
    assert re.search(
        rf"A user installing for gfx900 downloads {NUMBER} \(host\) \+ {NUMBER} \(gfx900\) = "
        rf"{NUMBER} instead of {NUMBER} \(90% saved\)\.",
        markdown,
    )
    assert "The host wheel is architecture-independent" in markdown
    key = markdown[markdown.index("**Key result:**") : markdown.index("Architectures found")]
    assert not re.search(r"[.:)][A-Z]", key), key  # sentences never run into each other
    assert "Architectures found: 20 (18 with kernels + 2 with database files only)." in markdown
    # The key result comes right after the summary table, before the download table.
    assert markdown.index("**Key result:**") < markdown.index("#### What a user downloads")


def test_phase_timings_table() -> None:
    table = section(render_split_report(seed()), "Phase timings")
    assert "| Scan: wheel members, fat binaries, database files | 0.6s |" in table
    assert (
        "| Kernel extraction and host binary rewrite (10 libraries), their RECORD check | 132s |"
    ) in table
    assert "| Kpack archive layout (18 archives, written with the device wheels) | 4.0s |" in table
    assert "host 90s, 16 device wheels 120s) | 210s |" in table
    assert "| **Total wall-clock** (20 jobs) | 360s |" in table


def test_per_library_extraction_figures() -> None:
    table = section(render_split_report(seed()), "Kernel extraction per library")
    assert "Extraction is dominated by `lib/libmagma.so` (" in table
    assert "6,160 kernels, 102s)." in table
    row = next(line for line in table.splitlines() if line.startswith("| `lib/libmagma.so` |"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[2] == "6,160" and cells[5] == "102s" and cells[6] == "14"
    # Code objects per target, collapsed.
    assert "<details><summary>Code objects per target</summary>" in table
    assert "gfx90a:xnack+ ×" in table


def test_notes_metadata_installation_layout() -> None:
    markdown = render_split_report(seed())
    assert "Hierarchy-aware bundling: gfx11 (family), gfx12_0 (sub-family)" in markdown
    assert (
        "- gfx942: gfx942, gfx942:xnack+, gfx942:xnack- in one device wheel (3 `.kpack` files)."
        in markdown
    )
    assert "- Database-only device wheels (no kernels): gfx11, gfx12_0." in markdown
    assert "- Kpack archives use zstd compression (level 3)." in markdown
    metadata = section(markdown, "Host METADATA")
    assert "```\nRequires-Dist: rocm-bootstrap\nProvides-Extra: gfx900\n" in metadata
    assert '\nRequires-Dist: amd-torch-device-gfx11 == 2.10.0+rocm7.1; extra == "gfx1100"\n' in (
        metadata
    )
    assert "<details><summary>All 53 added lines</summary>" in metadata
    install = section(markdown, "Installation")
    assert "`pip install torch[gfx1100]`: the host and gfx1100 + gfx11" in install
    assert "`pip install torch[all]`: the host and all 16 device wheels." in install
    assert "`pip install torch`: the host wheel only, with no GPU kernels." in install
    assert "variant-aware installer" in install
    layout = markdown[markdown.index("<details><summary>Layout") :]
    assert "    |   +-- torch_gfx942:xnack+.kpack (" in layout
    assert "amd_torch_device_gfx11-2.10.0+rocm7.1-cp313" in layout  # a database-only wheel
    assert "    +-- lib/aotriton.images/amd-gfx11xx/flash/ (1,780 database files)" in layout
    assert "(11,900 files in the host wheel, 14,322 database files moved out)" in layout


def test_untimed_report_has_no_timing_columns() -> None:
    report = seed()
    report["timings"] = None
    report["options"] = None
    markdown = render_split_report(report)
    assert "Phase timings" not in markdown
    assert "| Library | Size | Kernels | Device code | In kpacks | Architectures |" in markdown
    assert "compression" not in markdown
    jsonschema.validate(report, SCHEMA)


def test_hostile_strings_stay_inert() -> None:
    report = seed()
    report["libraries"][0]["path"] = "lib/`x`|<img src=x onerror=alert(1)>.so"
    report["host_metadata"]["added"][0] = "Requires-Dist: x\n```\n# injected heading"
    report["devices"][4]["db_dirs"][0]["dir"] = "lib/```\n<script>"
    markdown = render_split_report(report)
    fences = [line for line in markdown.splitlines() if line.startswith("```")]
    assert len(fences) % 2 == 0  # no value opens or closes a code block
    outside = re.sub(r"^```\n.*?^```\n", "", markdown, flags=re.S | re.M)
    assert "<img" not in outside and "<script>" not in outside
    assert "\n# injected heading" not in markdown


def test_comment_collapses_long_tables() -> None:
    body = render_comment(seed())
    assert "<details><summary><b>Device wheels</b> (16 rows)</summary>" in body
    assert body.count("<details>") == body.count("</details>")
    # The key result and the download table stay in view.
    head = body[: body.index("<details>")]
    assert "**Key result:**" in head and "| gfx1100 | host + gfx1100 + gfx11 |" in head


# --- a real split -------------------------------------------------------------------------------


def split_args(wheel: Path, out: Path, *extra: str) -> list[str]:
    return [
        "split",
        "--input",
        str(wheel),
        "--output-dir",
        str(out),
        "--device-package-prefix",
        "amd-torch-device",
        "--overlay-root",
        "torch/",
        "--wheel-type",
        "torch-fat",
        *extra,
    ]


@pytest.fixture(scope="module")
def fat_wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_fat_wheel(tmp_path_factory.mktemp("in"))


def run_split(fat_wheel: Path, base: Path, *extra: str) -> dict[str, Any]:
    out = base / "out"
    report = base / "report.json"
    args = split_args(fat_wheel, out, *extra)
    result = run_main([*args, "--report-json", str(report), "--report-md", str(base / "r.md")])
    assert result.returncode == 0, result.stderr
    data = json.loads(report.read_text())
    jsonschema.validate(data, SCHEMA)
    return {"out": out, "report": data, "markdown": (base / "r.md").read_text()}


@pytest.fixture(scope="module")
def split(fat_wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    base = tmp_path_factory.mktemp("split")
    return run_split(fat_wheel, base, "-j", "2", "--generate-variant-wheel")


def test_database_only_targets_are_not_gpus_with_savings(split: dict[str, Any]) -> None:
    report = split["report"]
    devices = {d["key"]: d for d in report["devices"]}
    # gfx950 has only a hipBLASLt database file, gfx803 only a rocBLAS one (no code objects).
    assert {row["target"] for row in report["database_only"]} == {"gfx803", "gfx950"}
    assert not {"gfx803", "gfx950"} & {row["target"] for row in report["downloads"]}
    for row in report["database_only"]:
        assert not any(devices[k]["kpacks"] for k in row["wheels"][1:])
        assert row["db_files"] == sum(devices[k]["db_files"] for k in row["wheels"][1:]) > 0
    for row in report["downloads"]:
        assert row["kernels"] == sum(devices[k]["kernels"] for k in row["wheels"][1:]) > 0
    downloads = section(split["markdown"], "What a user downloads for their GPU")
    assert "| gfx950 |" not in downloads and "| gfx803 |" not in downloads
    apart = section(split["markdown"], "Database files only, no kernels")
    assert "a GPU of this arch gets no kernels from this wheel" in apart.replace("\n", " ")
    assert "| gfx950 | target | host + gfx950 | 1 |" in apart
    assert report["summary"]["raw_archs"] == (
        report["summary"]["kernel_archs"] + report["summary"]["db_only_archs"]
    )


def test_a_family_kernel_counts_for_its_targets(split: dict[str, Any]) -> None:
    """gfx1151 has no code object of its own but the gfx11 family wheel holds gfx11-generic:
    a gfx1151 GPU gets kernels, so it is a GPU with savings."""
    rows = {row["target"]: row for row in split["report"]["downloads"]}
    assert rows["gfx1151"]["wheels"] == ["host", "gfx1151", "gfx11"]


def test_timings_are_in_the_report(split: dict[str, Any]) -> None:
    timings = split["report"]["timings"]
    assert [p["phase"] for p in timings["phases"]] == [
        "scan",
        "libraries",
        "kpacks",
        "wheels",
        "move",
        "cleanup",
    ]
    assert timings["jobs"] == 2
    assert sum(p["seconds"] for p in timings["phases"]) <= timings["total"] + 0.01
    assert timings["wheels"]["variant"] is not None
    assert "#### Phase timings" in split["markdown"]
    # the fixture's libraries are too small to pay for a pool (split.jobs.pool_workers)
    assert timings["workers"] == 1
    assert (
        "| **Total wall-clock** (2 jobs allowed; one process, too little work for a pool) |"
        in split["markdown"]
    )


def test_per_library_figures_match_the_fixture(split: dict[str, Any]) -> None:
    for row in split["report"]["libraries"]:
        built = MANIFEST[row["path"].removeprefix("lib/")]
        objects = [
            c
            for bundle in built["bundles"]
            for c in bundle["code_objects"]
            if not c["entry_id"].startswith("host")
        ]
        counts: dict[str, int] = {}
        for c in objects:
            target = normalize_arch(c["entry_id"].split("--", 1)[1])
            counts[target] = counts.get(target, 0) + 1
        assert row["code_objects"] == dict(sorted(counts.items())), row["path"]
        assert sum(row["code_objects"].values()) == row["kernels"]
        assert row["original"] == built["size"]
        # Device code: the code objects unpacked (a CCOB library holds more than its size);
        # at most the bundle entries' sizes (an entry may carry padding after its ELF).
        assert 0 < row["device_bytes"] <= sum(c["size"] for c in objects)
        assert row["kpack_bytes"] > 0
        assert row["seconds"] >= 0


def test_metadata_lines_are_those_of_the_host_wheel(split: dict[str, Any]) -> None:
    report = split["report"]
    host = split["out"] / report["host"]["file"]
    with zipfile.ZipFile(host) as zf:
        metadata = zf.read(report["host_metadata"]["file"]).decode()
    added = report["host_metadata"]["added"]
    assert added[0] == "Requires-Dist: rocm-bootstrap"
    assert all(f"\n{line}\n" in metadata for line in added)
    assert {"gfx1100", "all"} <= set(report["host_metadata"]["extras"])
    assert report["host_metadata"]["installs_devices_by_default"] is False
    assert "`pip install torch[gfx1100]`" in split["markdown"]


def test_markdown_renders_from_the_json_alone(split: dict[str, Any]) -> None:
    report = split["report"]
    assert (
        render_split_report(json.loads(split_report_json(copy.deepcopy(report))))
        == split["markdown"]
    )


def test_directory_output_and_host_installs_all(fat_wheel: Path, tmp_path: Path) -> None:
    result = run_split(
        fat_wheel, tmp_path, "--output-format", "directory", "--host-installs", "all", "-j", "1"
    )
    metadata = result["report"]["host_metadata"]
    assert metadata["installs_devices_by_default"] is True
    assert "`pip install torch`: the host and every device wheel" in result["markdown"]
    assert result["report"]["timings"]["jobs"] == 1


@pytest.mark.parametrize("extra", [0, 1, -1, 20_000, -20_000])
def test_no_sentence_says_x_instead_of_x(extra: int) -> None:
    """Issue 29: a target whose download is the fat wheel's size (a wheel with one
    architecture) read "8.6 MB instead of 8.6 MB (-0% saved)"."""
    report = seed()
    fat = report["input"]["size"]
    for row in report["downloads"]:  # every download as large as the fat wheel, give or take
        row["parts"][-1]["size"] += fat + extra - row["size"]
        row["size"] = fat + extra
        row["savings_pct"] = round(100.0 * (fat - row["size"]) / fat, 1)
    markdown = render_split_report(report)
    for m in re.finditer(r"= ([\d,.]+ [KM]B) instead of ([\d,.]+ [KM]B) \(([^)]*)\)", markdown):
        assert m.group(1) != m.group(2), m.group(0)
        assert not m.group(3).startswith(("-0%", "0%")), m.group(0)
    assert "-0%" not in markdown
    assert "as much as the fat wheel" in markdown
