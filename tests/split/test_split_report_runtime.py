"""Issue 20, point 7: the split report names the rocm-kpack runtime its layout needs, the
heaviest device wheel and the variant-aware install path (the reference report's notes)."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
from test_split_recompress import NAME, fat_files, split, zip_wheel

from conftest import REPO_ROOT


def test_report_names_the_kpack_runtime(tmp_path: Path) -> None:
    wheel = zip_wheel(tmp_path / NAME, fat_files())
    report_json, report_md = tmp_path / "r.json", tmp_path / "r.md"
    code, stderr = split(
        wheel, tmp_path / "out", "--report-json", str(report_json), "--report-md",
        str(report_md), "--generate-variant-wheel", "--variant-label", "rocm",
    )  # fmt: skip
    assert code == 0, stderr
    report = json.loads(report_json.read_text())
    schema = json.loads((REPO_ROOT / "docs" / "split-report.schema.json").read_text())
    jsonschema.validate(report, schema)
    runtime = report["layout"]["kpack_runtime"]
    assert "2026-02-19" in runtime and "7c12a83" in runtime
    markdown = report_md.read_text()
    assert runtime in markdown
    heaviest = max(report["devices"], key=lambda d: d["size"])
    assert f"- Heaviest device wheel: {heaviest['key']} (" in markdown
    assert "uv pip install torch" in markdown
    assert "WHEEL (checked lines only" in markdown or "<details>" not in markdown
