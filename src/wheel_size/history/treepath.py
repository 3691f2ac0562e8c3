"""Paths in a history tree that never lead out of it: the data branch is data.

Anyone who can push to the data branch can commit a symbolic link (``runs/2025`` pointing
at ``/home/runner``) or a submodule, and git checks both out as they are. Nothing we read or
write may pass through one: a reader skips a link and names it; a writer that needs the
path removes the link itself (never what it points to), names it, and writes through a
real directory, so the run's own night is still stored and the next commit of the branch
drops the link. Links are not data (git stores only their target text), so nothing stored
is lost by that. Each link is named once per command (:func:`note_link`).
"""

from __future__ import annotations

import os
from pathlib import Path, PurePosixPath

from wheel_size.errors import HistoryError
from wheel_size.fileio import output_error
from wheel_size.history.recordfile import note_skipped, shown

__all__ = ["is_link", "note_link", "real_dir", "tree_path"]


def is_link(path: Path) -> bool:
    """A symbolic link (dangling or not), checked without following it."""
    return path.is_symlink()


def real_dir(path: Path) -> bool:
    """A directory that is not a symbolic link."""
    return path.is_dir() and not is_link(path)


def note_link(rel: str, what: str = "a symbolic link", then: str = "") -> None:
    """Name a link in the tree once: ``runs/2025: a symbolic link in the history, not
    followed`` (the warning adds "(skipped)"); ``then`` says what became of it."""
    note_skipped(rel, f"{shown(rel, 300)}: {what} in the history, not followed{then}")


def _unlink(path: Path, rel: str) -> None:
    try:
        path.unlink()
    except OSError as exc:
        raise output_error(path, exc) from None
    note_link(rel, then="; removed, the run is stored in a real directory")


def tree_path(root: Path, rel: str) -> Path:
    """``root / rel``, ready to write: no component under ``root`` is a symbolic link.

    A link on the way (or in the file's place) is removed, not followed, and named; missing
    directories are created. The result is checked to resolve inside ``root``: a HistoryError
    otherwise, before anything is written.
    """
    parts = PurePosixPath(rel).parts
    if not parts or PurePosixPath(rel).is_absolute() or ".." in parts:
        raise HistoryError(f"{shown(rel)}: not a path inside the history")
    current = root
    for depth, part in enumerate(parts):
        current = current / part
        here = "/".join(parts[: depth + 1])
        if is_link(current):
            _unlink(current, here)
        if depth < len(parts) - 1 and not current.exists():
            try:
                current.mkdir()
            except OSError as exc:
                raise output_error(root / rel, exc) from None
    base = os.path.realpath(root)
    parent = os.path.realpath(current.parent)
    if os.path.commonpath([base, parent]) != base:
        raise HistoryError(f"{shown(rel)}: resolves outside the history; not written")
    return current
