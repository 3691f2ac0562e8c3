"""Where the nightly keeps its bisections between runs: beside the history (the data branch,
``bisections/<variant>/<date>.json``, one commit a run) or in a directory of the workspace.

The data branch is read with the history's rules for a hostile branch (size cap, regular
files only, no link followed); a damaged state is refused naming its path, never reused.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Protocol

from wheel_size.bisect.state import Event, State, dump_state, parse_state, save_state
from wheel_size.errors import HistoryError, InputError
from wheel_size.fileio import atomic_write
from wheel_size.history.recordfile import read_capped
from wheel_size.history.store import HistoryStore
from wheel_size.history.treepath import tree_path

__all__ = ["STORE_DIR", "DirectoryKeeper", "Keeper", "StoreKeeper", "state_name"]

STORE_DIR = "bisections"
MAX_STATE_BYTES = 1 << 20  # a state of 40 builds is ~15 KB
_VARIANT = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.+-]{0,99}$")
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def state_name(variant: str, date: str) -> str:
    """``<variant>/<date>.json``; a variant or date that could leave the directory is refused."""
    if not _VARIANT.match(variant) or ".." in variant or not _DATE.match(date):
        raise InputError(f"cannot keep a bisection of variant {variant!r} on {date!r}")
    return f"{variant}/{date}.json"


class Keeper(Protocol):
    where: str

    def pending(self, repo: str) -> list[tuple[str, str]]:
        """(variant, date) of the kept bisections of ``repo`` still pending."""
        ...

    def load(self, event: Event) -> State | None: ...

    def save(self, state: State) -> None:
        """Called after every change (cheap); :meth:`flush` makes it last."""
        ...

    def flush(self) -> None: ...


def _pending(texts: dict[str, str], repo: str) -> list[tuple[str, str]]:
    found = []
    for text in texts.values():
        try:
            kept = json.loads(text)
            event = kept["event"]
            if kept["state"] == "pending" and event["repo"] == repo:
                found.append((str(event["variant"]), str(event["date"])))
        except (ValueError, KeyError, TypeError):
            continue  # said when its event comes up, or never used
    return found


class DirectoryKeeper:
    """One file per event in a directory (``bisect-state`` of the action)."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.where = str(directory)

    def _path(self, variant: str, date: str) -> Path:
        return self.directory / state_name(variant, date).replace("/", "-")

    def pending(self, repo: str) -> list[tuple[str, str]]:
        texts = {}
        for path in sorted(self.directory.glob("*.json")) if self.directory.is_dir() else []:
            try:
                texts[str(path)] = path.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                continue
        return _pending(texts, repo)

    def load(self, event: Event) -> State | None:
        from wheel_size.bisect.state import load_state

        return load_state(self._path(event.variant, event.date), event)

    def save(self, state: State) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)
        save_state(self._path(state.event.variant, state.event.date), state)

    def flush(self) -> None:
        return None


class StoreKeeper:
    """The states on the history store, read once and written once (one commit)."""

    def __init__(self, store: HistoryStore) -> None:
        self.store = store
        self.where = store.description
        self.texts = self._read()
        self.dirty: dict[str, str] = {}

    def _read(self) -> dict[str, str]:
        read_tree = getattr(self.store, "read_tree", None)
        if read_tree is None:
            return {}

        def read(root: Path) -> dict[str, str]:
            out: dict[str, str] = {}
            base = root / STORE_DIR
            if not base.is_dir() or base.is_symlink():
                return out
            for variant in sorted(p for p in base.iterdir() if p.is_dir() and not p.is_symlink()):
                for f in sorted(variant.glob("*.json")):
                    rel = f.relative_to(root).as_posix()
                    try:
                        raw = read_capped(f, MAX_STATE_BYTES, rel, follow_symlinks=False)
                        out[rel] = raw.decode("utf-8")
                    except (HistoryError, UnicodeDecodeError) as exc:
                        out[rel] = f"unreadable: {exc}"  # refused by parse_state, named
            return out

        texts: dict[str, str] = read_tree(read)
        return texts

    def pending(self, repo: str) -> list[tuple[str, str]]:
        return _pending(self.texts, repo)

    def load(self, event: Event) -> State | None:
        rel = f"{STORE_DIR}/{state_name(event.variant, event.date)}"
        text = self.dirty.get(rel, self.texts.get(rel))
        if text is None:
            return None
        return parse_state(text, f"{self.where}: {rel}", event)

    def save(self, state: State) -> None:
        rel = f"{STORE_DIR}/{state_name(state.event.variant, state.event.date)}"
        self.dirty[rel] = dump_state(state)

    def flush(self) -> None:
        wanted = {rel: text for rel, text in self.dirty.items() if self.texts.get(rel) != text}
        if not wanted:
            return

        def change(root: Path) -> list[str]:
            for rel, text in sorted(wanted.items()):
                atomic_write(tree_path(root, rel), text.encode())
            return sorted(wanted)

        self.store.update(change, f"wheel-size: bisections ({len(wanted)} updated)")
        self.texts.update(wanted)
        self.dirty.clear()
