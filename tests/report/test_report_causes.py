"""The report's "likely cause" column, from investigation notes stored beside the runs
(no API call), and the notes' reader against a hostile data branch."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import jsonschema

from wheel_size.dates import parse_month
from wheel_size.history import DirectoryStore
from wheel_size.history.investigations import (
    MAX_NOTE_BYTES,
    InvestigationNote,
    note_path,
    read_note_tree,
    write_notes,
)
from wheel_size.history.recordfile import drain_skipped
from wheel_size.report import render_json, render_size_report
from wheel_size.report.build import reports_for

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "history"
SCHEMA = Path(__file__).resolve().parents[2] / "docs" / "report-format.schema.json"
SHA = "f447a50971a0cd3b3acfcd126acfeee8ad6f20c1"


def store_with_note(tmp_path: Path) -> DirectoryStore:
    shutil.copytree(EXAMPLE, tmp_path / "h")
    store = DirectoryStore(tmp_path / "h")
    note = InvestigationNote(
        key="jump/cuda12_8/2025-10-11",
        issue=7,
        issue_url="https://github.com/pytorch/pytorch/issues/7",
        cause_sha=SHA,
        cause_title="Build with -O3 (#101) @octocat",
        cause_status="CONFIRMED",
        cause_url=f"https://github.com/pytorch/pytorch/commit/{SHA}",
    )
    assert write_notes(store, [note], "notes") == ["investigations/jump/cuda12_8/2025-10-11.json"]
    assert write_notes(store, [note], "notes") == []  # the same bytes: nothing rewritten
    return store


def test_the_jumps_table_names_the_likely_cause(tmp_path: Path) -> None:
    store = store_with_note(tmp_path)
    (report,) = reports_for(store, ["cuda12_8"], [parse_month("October 2025")])
    md = render_size_report([report])
    assert "| Date | Size Change | New Size | Likely cause |" in md
    row = next(line for line in md.splitlines() if line.startswith("| 2025-10-11 | +4.0 MB"))
    assert f"[`{SHA[:12]}`](https://github.com/pytorch/pytorch/commit/{SHA})" in row
    assert "(CONFIRMED)" in row and "[issue](https://github.com/pytorch/pytorch/issues/7)" in row
    assert "@octocat" not in row  # neutralised like every other outside text
    other = [ln for ln in md.splitlines() if ln.startswith("| 2025-10-") and "MB |" in ln]
    assert any(ln.endswith("| — |") for ln in other)  # jumps without a note
    data = json.loads(render_json([report]))
    jsonschema.validate(data, json.loads(SCHEMA.read_text()))
    (jump,) = [j for j in data["jumps"] if j["date"] == "2025-10-11"]
    assert jump["likely_cause"]["status"] == "CONFIRMED" and jump["likely_cause"]["issue"] == 7


def test_hostile_notes_are_skipped_and_named(tmp_path: Path) -> None:
    store = store_with_note(tmp_path)
    root = tmp_path / "h"
    drain_skipped()
    bad = root / "investigations" / "jump" / "cuda12_8"
    (bad / "2025-10-20.json").write_bytes(b"\xff\xfe not utf-8")
    (bad / "2025-10-21.json").write_bytes(b" " * (MAX_NOTE_BYTES + 1))
    moved = json.loads((bad / "2025-10-11.json").read_text())
    (bad / "2025-10-22.json").write_text(json.dumps(moved))  # a note in another's place
    (bad / "2025-10-23.json").symlink_to("/etc/passwd")
    os.mkfifo(bad / "2025-10-24.json")
    notes = read_note_tree(root)
    assert list(notes) == ["jump/cuda12_8/2025-10-11"]
    skipped = {s.path for s in drain_skipped()}
    assert {f"investigations/jump/cuda12_8/2025-10-2{i}.json" for i in range(5)} <= skipped
    # The report still renders, with the good note.
    (report,) = reports_for(store, ["cuda12_8"], [parse_month("October 2025")])
    assert any(j.cause is not None for j in report.jumps)
    drain_skipped()


def test_note_paths_never_leave_the_directory() -> None:
    assert note_path("jump/cuda12_8/2025-10-11") == "investigations/jump/cuda12_8/2025-10-11.json"
    for key in ("jump/../x/2025-10-11", "jump/a/b/2025-10-11", "other/cpu/2025-10-11",
                "jump/cpu/2025-10-11/../../x", "jump/..hidden/2025-10-11"):  # fmt: skip
        assert note_path(key) is None
