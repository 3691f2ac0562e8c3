"""Record files: collected runs handed from parallel collect jobs to the one writer.

A fan-out workflow collects months in parallel (no job touches the data branch) and uploads
one record file each; a single fan-in job ingests them all and pushes once.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from wheel_size.errors import HistoryError
from wheel_size.fileio import atomic_write
from wheel_size.history.model import RunRecord, run_from_json, run_to_json
from wheel_size.history.recordfile import MAX_BUNDLE_BYTES, load_json, read_capped, shown

__all__ = ["BUNDLE_SCHEMA", "read_bundle", "write_bundle"]

BUNDLE_SCHEMA = "wheel-size/records"


def write_bundle(path: Path, runs: Sequence[RunRecord]) -> None:
    """Write ``runs`` to one JSON file, atomically."""
    body = ",\n".join(run_to_json(r).rstrip("\n") for r in runs)
    text = f'{{\n"schema": "{BUNDLE_SCHEMA}",\n"schema_version": 1,\n"runs": [\n{body}\n]\n}}\n'
    atomic_write(path, text.encode())


def read_bundle(path: Path) -> list[RunRecord]:
    """Read a record file written by ``wheel-size collect --out``.

    The file is the user's input (``store --records``, ``track --records``): anything wrong
    with it, a single bad run included, is a one-line :class:`HistoryError` before anything
    is stored. (Stored records on the data branch are skipped instead; see ``recordfile``.)
    """
    where = shown(path, 300)
    data = load_json(read_capped(path, MAX_BUNDLE_BYTES, where), where)
    if not isinstance(data, dict) or data.get("schema") != BUNDLE_SCHEMA:
        raise HistoryError(f"{where}: not a wheel-size record file (schema {BUNDLE_SCHEMA})")
    version = data.get("schema_version")
    if version != 1:
        shown_version = shown(repr(version), 40) if isinstance(version, (int, str)) else "?"
        raise HistoryError(f"{where}: record file schema_version {shown_version} is not supported")
    runs = data.get("runs")
    if not isinstance(runs, list):
        raise HistoryError(f"{where}: field 'runs' is not a list")
    return [run_from_json(r, f"{where}: runs[{i}]") for i, r in enumerate(runs)]
