"""Where the history lives: the Protocol every store meets, and the local directory store.

A store is a tree of one JSON file per nightly run (``runs/YYYY/MM/YYYY-MM-DD/<run_id>.json``):
files are never rewritten unless a new observation of the same run adds to them, two writers
never touch the same file, and no file grows with time. A store that cannot be written (full,
read-only, a file where a directory belongs) fails with one OutputError naming the path; every
file already stored is left as it was.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from wheel_size.errors import HistoryError
from wheel_size.fileio import atomic_write, make_dirs, remove_dirs
from wheel_size.history.model import RunRecord, run_from_json, run_to_json

__all__ = [
    "DirectoryStore",
    "HistoryStore",
    "WriteResult",
    "apply_runs",
    "read_run_tree",
]

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
    try:
        data = json.loads(path.read_bytes())
    except (OSError, ValueError) as exc:
        raise HistoryError(f"{label}: cannot read run record: {exc}") from None
    record = run_from_json(data, label)
    if path.name != f"{record.run_id}.json" or path.parent.name != record.date.isoformat():
        raise HistoryError(
            f"{label}: file is not where run {record.run_id} of {record.date} belongs"
        )
    return record


def read_run_tree(
    root: Path, since: dt.date | None, until: dt.date | None, label: str | None = None
) -> list[RunRecord]:
    """Every run stored under ``root/runs`` between ``since`` and ``until`` (inclusive).

    Directory names carry the dates, so a report over one month opens one month of files.
    """
    runs_dir = root / "runs"
    out: list[RunRecord] = []
    if not runs_dir.is_dir():
        return out
    lo = since.isoformat() if since else "0000-00-00"
    hi = until.isoformat() if until else "9999-99-99"
    for year in sorted(p for p in runs_dir.iterdir() if p.is_dir()):
        if not (lo[:4] <= year.name <= hi[:4]):
            continue
        for month in sorted(p for p in year.iterdir() if p.is_dir()):
            ym = f"{year.name}-{month.name}"
            if not (lo[:7] <= ym <= hi[:7]):
                continue
            for day in sorted(p for p in month.iterdir() if p.is_dir()):
                if not (lo <= day.name <= hi):
                    continue
                for f in sorted(day.glob("*.json")):
                    shown = f"{label or root}/{f.relative_to(root).as_posix()}"
                    out.append(_read_file(f, shown))
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
        path = root / rel
        if path.exists():
            old = _read_file(path, f"{root}/{rel}")
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
