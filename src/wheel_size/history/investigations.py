"""Investigation notes stored beside the runs: what the issues concluded, for the report.

When a regression issue is opened (or its lifecycle moves), a small JSON file per event is
written to ``investigations/<kind>/<variant>/<date>.json`` on the same store as the runs
(the data branch). The report reads them to fill its "likely cause" column without any API
call. The files are read with the record reader's rules for a hostile data branch: a size
cap, regular files only, strict UTF-8, and a bad file is skipped and named, never fatal.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from wheel_size.errors import HistoryError
from wheel_size.fileio import atomic_write
from wheel_size.history.document import NoteDocument
from wheel_size.history.recordfile import load_json, note_skipped, read_capped
from wheel_size.history.treepath import note_link, tree_path

if TYPE_CHECKING:
    from wheel_size.history.store import HistoryStore

__all__ = [
    "MAX_NOTE_BYTES",
    "NOTES_DIR",
    "InvestigationNote",
    "note_path",
    "read_note_tree",
    "read_notes",
    "write_notes",
]

NOTES_DIR = "investigations"
#: A note is a few hundred bytes; anything bigger was not written by us.
MAX_NOTE_BYTES = 64 << 10
_KEY = re.compile(
    r"^(?P<kind>jump|creep)/(?P<variant>[A-Za-z0-9][A-Za-z0-9_.+-]{0,99})/"
    r"(?P<date>\d{4}-\d{2}-\d{2})$"
)
_TEXT_LIMIT = 300

T = TypeVar("T")


def note_path(key: str) -> str | None:
    """The note's place in the store for an event key; None for a key that is not ours
    (a variant with a path separator or ``..`` never becomes a path)."""
    m = _KEY.match(key)
    if m is None or ".." in m["variant"]:
        return None
    return f"{NOTES_DIR}/{m['kind']}/{m['variant']}/{m['date']}.json"


def _text(value: object, limit: int = _TEXT_LIMIT) -> str | None:
    if not isinstance(value, str) or not value:
        return None
    return value[:limit]


@dataclass(frozen=True)
class InvestigationNote:
    """One event's conclusion: the issue and the top candidate with its status."""

    key: str
    issue: int | None = None
    issue_url: str | None = None
    cause_sha: str | None = None
    cause_title: str | None = None
    cause_status: str | None = None  # CONFIRMED / LIKELY / ... or None (unassessed)
    cause_url: str | None = None
    state: str = "open"  # open / rolled-back / offset / grew

    def to_json(self) -> NoteDocument:
        return {
            "schema": "wheel-size/investigation",
            "schema_version": 1,
            "key": self.key,
            "issue": self.issue,
            "issue_url": self.issue_url,
            "cause": None
            if self.cause_sha is None
            else {
                "sha": self.cause_sha,
                "title": self.cause_title,
                "status": self.cause_status,
                "url": self.cause_url,
            },
            "state": self.state,
        }

    @classmethod
    def from_json(cls, data: object, where: str) -> InvestigationNote:
        if not isinstance(data, Mapping) or data.get("schema") != "wheel-size/investigation":
            raise HistoryError(f"{where}: not a wheel-size investigation note")
        key = data.get("key")
        if not isinstance(key, str) or note_path(key) != where:
            raise HistoryError(f"{where}: the note's key does not match its place")
        issue = data.get("issue")
        cause = data.get("cause")
        cause = cause if isinstance(cause, Mapping) else {}
        sha = _text(cause.get("sha"), 40)
        if sha is not None and not re.fullmatch(r"[0-9a-f]{7,40}", sha):
            raise HistoryError(f"{where}: cause.sha is not a commit SHA")
        return cls(
            key=key,
            issue=issue if isinstance(issue, int) and not isinstance(issue, bool) else None,
            issue_url=_text(data.get("issue_url")),
            cause_sha=sha,
            cause_title=_text(cause.get("title")),
            cause_status=_text(cause.get("status"), 20),
            cause_url=_text(cause.get("url")),
            state=_text(data.get("state"), 20) or "open",
        )


def read_note_tree(root: Path) -> dict[str, InvestigationNote]:
    """Every usable note under ``root/investigations``, by event key; the others are
    skipped and named (:func:`wheel_size.history.recordfile.note_skipped`)."""
    base = root / NOTES_DIR
    out: dict[str, InvestigationNote] = {}
    if base.is_symlink():
        note_link(NOTES_DIR)
    if not base.is_dir() or base.is_symlink():
        return out
    for kind in sorted(p for p in base.iterdir() if p.is_dir() and not p.is_symlink()):
        for variant in sorted(p for p in kind.iterdir() if p.is_dir() and not p.is_symlink()):
            for f in sorted(variant.glob("*.json")):
                rel = f.relative_to(root).as_posix()
                try:
                    raw = read_capped(f, MAX_NOTE_BYTES, rel, follow_symlinks=False)
                    note = InvestigationNote.from_json(load_json(raw, rel), rel)
                except HistoryError as exc:
                    note_skipped(rel, str(exc))
                    continue
                except Exception as exc:  # one bad file is that file's problem
                    note_skipped(rel, f"{rel}: cannot read note: {type(exc).__name__}: {exc}")
                    continue
                out[note.key] = note
    return out


def read_notes(store: object) -> dict[str, InvestigationNote]:
    """The notes of a store that can show its tree (``read_tree``); none otherwise."""
    read_tree: Callable[[Callable[[Path], T]], T] | None = getattr(store, "read_tree", None)
    if read_tree is None:
        return {}
    return read_tree(read_note_tree)


def _encode(note: InvestigationNote) -> bytes:
    return (json.dumps(note.to_json(), indent=1, sort_keys=True, ensure_ascii=True) + "\n").encode()


def write_notes(store: HistoryStore, notes: Iterable[InvestigationNote], message: str) -> list[str]:
    """Write ``notes`` to ``store`` in one change (one commit on a data branch); a note
    whose bytes are already stored is left alone. Returns the paths changed."""
    wanted = {path: _encode(n) for n in notes if (path := note_path(n.key)) is not None}
    if not wanted:
        return []

    def change(root: Path) -> list[str]:
        changed = []
        for rel, data in sorted(wanted.items()):
            target = tree_path(root, rel)  # never through a planted link
            if target.is_file() and not target.is_symlink():
                try:
                    if read_capped(target, MAX_NOTE_BYTES, rel, follow_symlinks=False) == data:
                        continue
                except HistoryError:
                    pass  # a damaged note is replaced
            atomic_write(target, data)
            changed.append(rel)
        return changed

    result = store.update(change, message)
    return list(result.changed)
