"""The check result is a typed document (issue 22, point 4): its TypedDicts and
``docs/check-format.schema.json`` describe the same shape, and the JSON a real check writes
(a wheel over its growth budget, with its diff) validates against the schema."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema

from check_world import World, big_pr_wheel
from conftest import REPO_ROOT
from fakegithub import FakeGitHub
from typed_schema import differences
from wheel_size.check.document import CheckOutputDocument

DOCS = REPO_ROOT / "docs"
# A wheel's diff is a comparison of the diff's own schema: its definitions join the check's.
_TEXT = (DOCS / "check-format.schema.json").read_text()
_DIFF = json.loads((DOCS / "diff-format.schema.json").read_text())
SCHEMA: dict[str, Any] = json.loads(_TEXT.replace('"diff-format.schema.json#/', '"#/'))
SCHEMA["$defs"] = {**_DIFF["$defs"], **SCHEMA["$defs"]}


def test_typed_check_matches_the_schema() -> None:
    assert set(_DIFF["$defs"]).isdisjoint(json.loads(_TEXT)["$defs"])
    assert differences(CheckOutputDocument, SCHEMA, SCHEMA) == []


def test_written_check_validates(fake_github: FakeGitHub, tmp_path: Path) -> None:
    world = World(fake_github, tmp_path)
    big_pr_wheel(tmp_path)
    code, _, err = world.check([tmp_path / "pr"], "--budget-mb", "1")
    assert code == 1, err
    document = json.loads((tmp_path / "check.json").read_text())
    jsonschema.validate(document, SCHEMA)
    (wheel,) = document["wheels"]
    assert [b["kind"] for b in wheel["breaches"]] == ["growth"]
    assert wheel["diff"] is not None and wheel["base"]["basis"] == "wheel"
    assert document["compared_with"]["mode"] == "newest"  # asked for: no merge base here
    assert document["conclusion"] == "failure" and document["not_checked"] == []
