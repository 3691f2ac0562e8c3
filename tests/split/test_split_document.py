"""The split report is a typed document (issue 22, point 4): its TypedDicts and
``docs/split-report.schema.json`` describe the same shape, and a document built by a real
split validates against the schema."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema

from conftest import REPO_ROOT
from fatwheel import build_fat_wheel
from typed_schema import differences
from wheel_size.split.document import FileSize, SplitReport
from wheel_size.split.job import SplitRequest, checked_split_options, run_split_job
from wheel_size.split.report import split_report_json

SCHEMA = json.loads((REPO_ROOT / "docs" / "split-report.schema.json").read_text())


def test_typed_report_matches_the_schema() -> None:
    assert differences(SplitReport, SCHEMA, SCHEMA) == []


def test_the_check_sees_a_difference() -> None:
    """A schema with one more property, or a nullable one made strict, is reported."""
    wider = json.loads(json.dumps(SCHEMA))
    wider["$defs"]["file"]["properties"]["sha256"] = {"type": "string"}
    assert differences(FileSize, wider["$defs"]["file"], wider) == ["$: FileSize lacks sha256"]
    strict = json.loads(json.dumps(SCHEMA))
    strict["properties"]["variant"] = {"$ref": "#/$defs/file"}
    assert "$.variant: type allows None: True, schema allows null: False" in differences(
        SplitReport, strict, strict
    )


def test_built_report_validates(tmp_path: Path) -> None:
    wheel = build_fat_wheel(tmp_path / "in")
    options = checked_split_options(
        device_package_prefix="amd-torch-device", overlay_root="torch/", wheel_type="torch-fat"
    )
    outcome = run_split_job(SplitRequest(wheel, tmp_path / "out", options))
    text = split_report_json(outcome.report)
    jsonschema.validate(json.loads(text), SCHEMA)
    assert json.loads(text) == outcome.report  # the typed document is the JSON, as it is
