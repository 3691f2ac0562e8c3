"""Where the history lives: the Protocol every store meets, and the local directory store.

A store is a tree of one JSON file per nightly run (``runs/YYYY/MM/YYYY-MM-DD/<run_id>.json``):
files are never rewritten unless a new observation of the same run adds to them, two writers
never touch the same file, and no file grows with time. A store that cannot be written (full,
read-only, a file where a directory belongs) fails with one OutputError naming the path; every
file already stored is left as it was.
"""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol, TypeVar

from wheel_size.errors import HistoryError
from wheel_size.fileio import atomic_write, make_dirs, remove_dirs
from wheel_size.history.model import RunRecord, run_from_json, run_to_json
from wheel_size.history.recordfile import (
    MAX_RECORD_BYTES,
    load_json,
    note_skipped,
    read_capped,
    shown,
)
from wheel_size.history.treepath import is_link, note_link, tree_path

__all__ = [
    "DirectoryStore",
    "HistoryStore",
    "WriteResult",
    "apply_runs",
    "read_run_tree",
]

T = TypeVar("T")

# A change to a store's tree: gets the tree root, returns the paths (relative) it changed.
Change = Callable[[Path], list[str]]


@dataclass
class WriteResult:
    """What a write did: files created or extended, and records that were already stored."""

    changed: list[str] = field(default_factory=list)
    unchanged: int = 0
    commit: str | None = None

    @property
    def nothing_new(self) -> bool:
        return not self.changed


class HistoryStore(Protocol):
    """The two stores (local directory, git data branch) behind one interface."""

    description: str

    def read_runs(
        self, since: dt.date | None = None, until: dt.date | None = None
    ) -> list[RunRecord]: ...

    def write_runs(self, runs: Sequence[RunRecord], message: str | None = None) -> WriteResult: ...

    def update(self, change: Change, message: str) -> WriteResult: ...


def _read_file(path: Path, label: str) -> RunRecord:
    """One stored run; a HistoryError naming ``label`` for anything wrong with it."""
    raw = read_capped(path, MAX_RECORD_BYTES, label, follow_symlinks=False)
    record = run_from_json(load_json(raw, label), label)
    if path.name != f"{record.run_id}.json" or path.parent.name != record.date.isoformat():
        raise HistoryError(
            f"{label}: file is not where run {record.run_id} of {record.date} belongs"
        )
    return record


def _real_dir(path: Path, root: Path | None = None) -> bool:
    """A directory that is not a symbolic link (a planted link must not lead the reader
    out of the store); a link under ``root`` is named."""
    if is_link(path):
        if root is not None:
            note_link(path.relative_to(root).as_posix())
        return False
    return path.is_dir()


def _read_skipping(path: Path, rel: str) -> RunRecord | None:
    """A stored run, or None when it cannot be used: the file is reported by its place in
    the store (``runs/…``: once, however many copies of the tree a command reads, and never
    a scratch path) and skipped, so a planted or damaged record never stops a later night
    and is never rewritten."""
    where = shown(rel, 300)
    try:
        return _read_file(path, where)
    except HistoryError as exc:
        note_skipped(rel, str(exc))
    except Exception as exc:  # any failure on one stored file is that file's
        note_skipped(rel, f"{where}: cannot read run record: {type(exc).__name__}: {exc}")
    return None


def read_run_tree(
    root: Path, since: dt.date | None, until: dt.date | None, label: str | None = None
) -> list[RunRecord]:
    """Every run stored under ``root/runs`` between ``since`` and ``until`` (inclusive).

    Directory names carry the dates, so a report over one month opens one month of files.
    A file that is not a usable record is skipped and reported by its path in the store
    (see :func:`wheel_size.history.recordfile.drain_skipped`); ``label`` (the store's name)
    is no longer part of those messages, since a command also reads scratch copies.
    """
    del label
    runs_dir = root / "runs"
    out: list[RunRecord] = []
    if not _real_dir(runs_dir, root):
        return out
    lo = since.isoformat() if since else "0000-00-00"
    hi = until.isoformat() if until else "9999-99-99"
    for year in sorted(runs_dir.iterdir()):
        if not (lo[:4] <= year.name <= hi[:4]) or not _real_dir(year, root):
            continue
        for month in sorted(year.iterdir()):
            ym = f"{year.name}-{month.name}"
            if not (lo[:7] <= ym <= hi[:7]) or not _real_dir(month, root):
                continue
            for day in sorted(month.iterdir()):
                if not (lo <= day.name <= hi) or not _real_dir(day, root):
                    continue
                for f in sorted(day.glob("*.json")):
                    record = _read_skipping(f, f.relative_to(root).as_posix())
                    if record is not None:
                        out.append(record)
    out.sort(key=lambda r: (r.date, r.created_at or "", r.run_id))
    return out


def apply_runs(root: Path, runs: Iterable[RunRecord], result: WriteResult) -> list[str]:
    """Write ``runs`` into the tree at ``root``: new files, or merges that add information.

    Every file is written atomically; a record equal to what is stored is left alone, so
    re-running a night changes nothing.
    """
    changed: list[str] = []
    merged: dict[str, RunRecord] = {}
    for run in runs:
        rel = run.relpath()
        merged[rel] = merged[rel].merged_with(run) if rel in merged else run
    for rel, run in sorted(merged.items()):
        path = tree_path(root, rel)  # a planted link on the way is removed, never followed
        if os.path.lexists(path):
            try:
                old = _read_file(path, rel)
            except Exception as exc:  # reported; the file is left as it is
                # Nothing stored is rewritten because it cannot be read: skip this run.
                problem = str(exc) if isinstance(exc, HistoryError) else repr(exc)
                note_skipped(
                    f"{rel} (not stored)",
                    f"{problem}; run {run.run_id} of {run.date} not stored over it "
                    "(move the file away to store the run)",
                )
                continue
            new = old.merged_with(run)
            if new.same_content(old):
                result.unchanged += 1
                continue
        else:
            new = run
        atomic_write(path, run_to_json(new).encode())
        changed.append(rel)
    return changed


class DirectoryStore:
    """The history as a plain directory (default ``.wheel-size/``), for local use and tests."""

    def __init__(self, root: Path | str) -> None:
        self.root = Path(root)
        self.description = f"history directory {self.root}"

    def read_runs(
        self, since: dt.date | None = None, until: dt.date | None = None
    ) -> list[RunRecord]:
        if self.root.exists() and not self.root.is_dir():
            raise HistoryError(f"{self.root}: history path is not a directory")
        return read_run_tree(self.root, since, until)

    def read_tree(self, read: Callable[[Path], T]) -> T:
        """Run ``read`` over the directory (the investigation notes beside the runs)."""
        return read(self.root)

    def update(self, change: Change, message: str) -> WriteResult:
        del message  # a directory has no commit to describe
        self._check_root()
        made = make_dirs(self.root)
        changed: list[str] = []
        try:
            changed = change(self.root)
        finally:
            if not changed:  # a failed or empty first run leaves no empty dir
                remove_dirs(made)
        return WriteResult(changed=changed)

    def write_runs(self, runs: Sequence[RunRecord], message: str | None = None) -> WriteResult:
        result = WriteResult()
        self._check_root()
        made = make_dirs(self.root)
        try:
            result.changed = apply_runs(self.root, runs, result)
        except BaseException:
            if not result.changed:
                remove_dirs(made)
            raise
        return result

    def _check_root(self) -> None:
        if self.root.exists() and not self.root.is_dir():
            raise HistoryError(f"{self.root}: history path is not a directory")
