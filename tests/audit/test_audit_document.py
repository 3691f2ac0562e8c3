"""The audit result is a typed document (issue 22, point 4): its TypedDicts and
``docs/audit-format.schema.json`` describe the same shape, and a document built from real
wheels validates against the schema."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema

from conftest import REPO_ROOT
from typed_schema import differences
from wheel_factory import make_wheel
from wheel_size.audit.document import AuditOutputDocument
from wheel_size.audit.run import audit_paths

SCHEMA = json.loads((REPO_ROOT / "docs" / "audit-format.schema.json").read_text())
SO = REPO_ROOT / "tests" / "data" / "abi3" / "clean.abi3.so"


def test_typed_audit_matches_the_schema() -> None:
    assert differences(AuditOutputDocument, SCHEMA, SCHEMA) == []


def test_built_audit_validates(tmp_path: Path) -> None:
    for job in ("cpu", "cu126"):
        (tmp_path / job).mkdir()
        make_wheel(tmp_path / job, "ao", "1.0", files={"ao/__init__.py": b"x = 1\n"})
    make_wheel(
        tmp_path, "ext", "1.0", "cp39-abi3-manylinux_2_28_x86_64", files={"ext/_c.abi3.so": SO}
    )
    document = audit_paths([tmp_path]).to_json()
    jsonschema.validate(document, SCHEMA)
    assert len(document["wheels"]) == 3 and document["wheels"][2]["native_extensions"]
