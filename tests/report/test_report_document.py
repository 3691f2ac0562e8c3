"""The size report is a typed document (issue 22, point 4): its TypedDicts and
``docs/report-format.schema.json`` describe the same shapes, and a report built from the
example history (with a baseline and months) validates against the schema as built."""

from __future__ import annotations

import json

import jsonschema

from conftest import REPO_ROOT
from typed_schema import differences
from wheel_size.dates import parse_month
from wheel_size.history import DirectoryStore
from wheel_size.report.build import reports_for
from wheel_size.report.document import ReportDocument
from wheel_size.series import Baseline, Thresholds

SCHEMA = json.loads((REPO_ROOT / "docs" / "report-format.schema.json").read_text())
EXAMPLE = REPO_ROOT / "examples" / "history"


def test_typed_report_matches_the_schema() -> None:
    assert differences(ReportDocument, SCHEMA, SCHEMA) == []


def test_built_report_validates() -> None:
    months = [parse_month("October 2025"), parse_month("January 2026")]
    t = Thresholds(mb=1.0, baseline=Baseline.parse("median:5"))
    (report,) = reports_for(DirectoryStore(EXAMPLE), ["cuda12_8"], months, thresholds=t)
    document = report.to_dict()
    jsonschema.validate(document, SCHEMA)
    assert document["jumps"] and "baseline" in document["jumps"][0]
    assert json.loads(report.to_json()) == document
