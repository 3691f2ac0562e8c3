"""A stored run record is a typed document (issue 22, point 4): its TypedDicts and
``docs/history-format.schema.json`` describe the same shape, and a record written with
artifacts and jobs validates against the schema as written."""

from __future__ import annotations

import json
import typing
from dataclasses import replace

import jsonschema

from conftest import REPO_ROOT
from history_factory import run
from typed_schema import differences
from wheel_size.history.document import RunDocument
from wheel_size.history.model import JobRecord, run_to_json

SCHEMA = json.loads((REPO_ROOT / "docs" / "history-format.schema.json").read_text())


def test_typed_record_matches_the_schema() -> None:
    assert differences(RunDocument, SCHEMA, SCHEMA) == []


def test_written_record_validates() -> None:
    record = replace(
        run("2025-10-11", {"cpu": 175.0, "cuda12_8": 859.3}),
        jobs=(JobRecord("build cpu", id=7, run_attempt=1, status="completed"),),
    )
    document = json.loads(run_to_json(record))
    jsonschema.validate(document, SCHEMA)
    assert set(document) == set(typing.get_type_hints(RunDocument))


def test_installed_size_is_optional_and_round_trips() -> None:
    """Issue 34: ``installed_bytes`` is written only when read; a record without it is
    written byte for byte as before, and one with it validates and reads back."""
    from wheel_size.history.model import run_from_json

    plain = run("2025-10-11", {"cpu": 175.0})
    assert "installed_bytes" not in run_to_json(plain)
    artifact = replace(plain.artifacts[0], installed_bytes=512_000_000)
    measured = replace(plain, artifacts=(artifact,))
    document = json.loads(run_to_json(measured))
    jsonschema.validate(document, SCHEMA)
    assert document["artifacts"][0]["installed_bytes"] == 512_000_000
    assert run_from_json(document) == measured
    assert run_from_json(json.loads(run_to_json(plain))) == plain


def test_a_relisting_keeps_a_measured_installed_size() -> None:
    plain = run("2025-10-11", {"cpu": 175.0})
    measured = replace(plain, artifacts=(replace(plain.artifacts[0], installed_bytes=9),))
    assert plain.merged_with(measured).artifacts[0].installed_bytes == 9
    assert measured.merged_with(plain).artifacts[0].installed_bytes == 9
