"""``bisect --format json`` is a typed document: its TypedDicts and
``docs/bisect-format.schema.json`` describe the same shape, and a real bisection's document
validates against the schema."""

from __future__ import annotations

import json
import random

import jsonschema
from simfarm import SimFarm
from test_engine_bounds import MB, run, window

from conftest import REPO_ROOT
from typed_schema import differences
from wheel_size.bisect.document import BisectDocument, bisect_document

SCHEMA = json.loads((REPO_ROOT / "docs" / "bisect-format.schema.json").read_text())


def test_typed_document_matches_the_schema() -> None:
    assert differences(BisectDocument, SCHEMA, SCHEMA) == []


def test_a_bisection_validates() -> None:
    order, sizes = window(random.Random(9), 30, {7: 3 * MB, 20: 2 * MB}, 0)
    broken = {order[8]}
    state, _ = run(
        order, sizes, 2, MB // 2, farm=SimFarm(lambda s: None if s in broken else sizes[s])
    )
    document = bisect_document(state)
    jsonschema.validate(document, SCHEMA)
    assert document["culprits"] and any(b["conclusion"] == "failure" for b in document["builds"])
