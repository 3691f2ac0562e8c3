"""The diff result is a typed document (issue 22, point 4): its TypedDicts and
``docs/diff-format.schema.json`` describe the same shapes (one comparison, a set of them,
and the ``--by`` report), and a diff of real wheels validates against the schema."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema

from conftest import REPO_ROOT
from typed_schema import differences
from wheel_factory import make_wheel
from wheel_size.diff.compare import diff_wheels
from wheel_size.diff.document import ByReportDocument, ComparisonDocument, DiffSetDocument

SCHEMA = json.loads((REPO_ROOT / "docs" / "diff-format.schema.json").read_text())
SO = REPO_ROOT / "tests" / "data" / "abi3" / "clean.abi3.so"


def test_typed_diff_matches_the_schema() -> None:
    comparison, diff_set, by_report = SCHEMA["oneOf"]
    assert differences(ComparisonDocument, comparison, SCHEMA) == []
    assert differences(DiffSetDocument, diff_set, SCHEMA) == []
    assert differences(ByReportDocument, by_report, SCHEMA) == []


def test_built_diff_validates(tmp_path: Path) -> None:
    old = make_wheel(tmp_path / "old", "ext", "1.0", files={"ext/a.py": b"a = 1\n"})
    new = make_wheel(
        tmp_path / "new", "ext", "1.0", files={"ext/a.py": b"a = 22\n", "ext/_c.abi3.so": SO}
    )
    document = diff_wheels(old, new).to_json()
    jsonschema.validate(document, SCHEMA)
    assert {"ext/_c.abi3.so", "ext/a.py"} <= {f["path"] for f in document["files"]}
