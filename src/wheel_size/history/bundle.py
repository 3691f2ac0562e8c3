"""Record files: collected runs handed from parallel collect jobs to the one writer.

A fan-out workflow collects months in parallel (no job touches the data branch) and uploads
one record file each; a single fan-in job ingests them all and pushes once.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from wheel_size.errors import HistoryError
from wheel_size.fileio import atomic_write
from wheel_size.history.model import RunRecord, run_from_json, run_to_json

__all__ = ["BUNDLE_SCHEMA", "read_bundle", "write_bundle"]

BUNDLE_SCHEMA = "wheel-size/records"


def write_bundle(path: Path, runs: Sequence[RunRecord]) -> None:
    """Write ``runs`` to one JSON file, atomically."""
    body = ",\n".join(run_to_json(r).rstrip("\n") for r in runs)
    text = f'{{\n"schema": "{BUNDLE_SCHEMA}",\n"schema_version": 1,\n"runs": [\n{body}\n]\n}}\n'
    atomic_write(path, text.encode())


def read_bundle(path: Path) -> list[RunRecord]:
    """Read a record file written by ``wheel-size collect --out``."""
    try:
        data = json.loads(path.read_bytes())
    except (OSError, ValueError) as exc:
        raise HistoryError(f"{path}: cannot read record file: {exc}") from None
    if not isinstance(data, dict) or data.get("schema") != BUNDLE_SCHEMA:
        raise HistoryError(f"{path}: not a wheel-size record file (schema {BUNDLE_SCHEMA})")
    if data.get("schema_version") != 1:
        raise HistoryError(
            f"{path}: record file schema_version {data.get('schema_version')!r} is not supported"
        )
    runs = data.get("runs")
    if not isinstance(runs, list):
        raise HistoryError(f"{path}: field 'runs' is not a list")
    return [run_from_json(r, f"{path}: runs[{i}]") for i, r in enumerate(runs)]
