"""Whole-file writes that never leave half a file, and output paths that cannot escape.

Every report, run record and page goes through :func:`atomic_write`: write a temporary file,
move it into place, so a reader (or a crash) never sees a truncated file and a failure keeps
the old contents. Streamed writers (wheels, kpack archives, downloads) keep their own temporary
file because they write as they go, but report failures the same way: an :class:`OutputError`
naming the path and the system's reason (no space, read-only, a file where a directory should
be), never a traceback.

Names of outputs derived from input files (a wheel's version, a member path) go through
:func:`path_inside` before anything is written, so a hostile name cannot reach outside the
output directory.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import tempfile
from collections.abc import Iterable, Sequence
from pathlib import Path, PurePosixPath

from wheel_size.errors import InputError, OutputError

__all__ = [
    "CONTROL_CHARACTER",
    "atomic_write",
    "atomic_write_all",
    "atomic_write_text",
    "check_writable",
    "is_write_failure",
    "make_dirs",
    "output_error",
    "path_inside",
    "relative_path",
    "remove_dirs",
]

# A NUL or control character (C0 or DEL): never in a name we write or read. One search per
# name, not a Python test per character (a split names every member of every output).
CONTROL_CHARACTER = re.compile("[\x00-\x1f\x7f]")

# errno values that mean "the place we write to refused", as opposed to a bad input file.
_WRITE_ERRNOS = frozenset(
    {
        errno.ENOSPC,
        errno.EDQUOT,
        errno.EROFS,
        errno.EACCES,
        errno.EPERM,
        errno.EISDIR,
        errno.ENOTDIR,
        errno.EEXIST,
        errno.EFBIG,
        errno.ENOTEMPTY,
        errno.ENAMETOOLONG,
        errno.EMLINK,
    }
)


def is_write_failure(exc: BaseException) -> bool:
    """True for an OSError whose errno says the output side refused (full, read-only...)."""
    return isinstance(exc, OSError) and exc.errno in _WRITE_ERRNOS


def _blocker(path: Path, *, itself: bool = False) -> Path | None:
    """The nearest existing ancestor of ``path`` (or ``path`` itself) that is not a
    directory, if any."""
    for parent in [path, *path.parents] if itself else path.parents:
        if parent.exists() or parent.is_symlink():
            return None if parent.is_dir() else parent
    return None


def output_error(path: Path | str, exc: OSError) -> OutputError:
    """One line for a failed write of ``path``: the path and the system's reason."""
    reason = exc.strerror or str(exc) or type(exc).__name__
    if exc.errno in (errno.ENOTDIR, errno.EEXIST):
        blocker = _blocker(Path(path))
        if blocker is not None:
            reason = f"{blocker} is not a directory"
    elif exc.errno == errno.EISDIR:
        reason = "is a directory, not a file"
    return OutputError(f"{path}: cannot write: {reason}")


def check_writable(path: Path) -> None:
    """Refuse, before any work, an output file that cannot be written where it is asked for:
    a directory in its place, a regular file among its parents, or a read-only file system.

    A full disk cannot be predicted; :func:`atomic_write` reports that one when it happens.
    """
    if path.is_dir():
        raise OutputError(f"{path}: cannot write: is a directory, not a file")
    blocker = _blocker(path)
    if blocker is not None:
        raise OutputError(f"{path}: cannot write: {blocker} is not a directory")
    existing = next((p for p in path.parents if p.exists()), None)
    if existing is None:
        return
    try:
        readonly = bool(os.statvfs(existing).f_flag & os.ST_RDONLY)
    except OSError:
        readonly = False
    if readonly:
        raise OutputError(f"{path}: cannot write: {os.strerror(errno.EROFS)}")
    if not os.access(existing, os.W_OK | os.X_OK):
        raise OutputError(f"{path}: cannot write: {os.strerror(errno.EACCES)} ({existing})")


def relative_path(name: str) -> PurePosixPath:
    """``name`` as a relative path that stays where it is put: no root, no ``..``, no NUL or
    control character, no empty name. Raises InputError naming it otherwise."""
    if not name or CONTROL_CHARACTER.search(name):
        raise InputError(f"{name!r}: not a usable file name (empty or control characters)")
    rel = PurePosixPath(name)
    if rel.is_absolute() or ".." in rel.parts or not rel.parts or rel.parts == (".",):
        raise InputError(f"{name}: output path leaves its directory")
    return rel


def path_inside(root: Path, relative: str) -> Path:
    """``root / relative``, refused (InputError naming it) unless it resolves inside ``root``.

    Checked before anything is written: the name is relative with no ``..``, and following
    any symlink already on disk does not lead out of ``root`` either.
    """
    rel = relative_path(relative)
    base = root.resolve()
    target = (base / rel).resolve()
    if target == base or not target.is_relative_to(base):
        raise InputError(f"{root / relative}: output path resolves outside {root}")
    return root / rel


def make_dirs(path: Path, *, naming: Path | None = None) -> list[Path]:
    """Create ``path`` and its missing parents; return the directories made (outermost
    first), so a failed run can remove exactly those. Raises OutputError naming ``naming``
    (the output that needed the directory) or ``path``."""
    missing: list[Path] = []
    for candidate in [path, *path.parents]:
        if candidate.is_dir():
            break
        missing.append(candidate)
    missing.reverse()
    made: list[Path] = []
    try:
        for directory in missing:
            directory.mkdir()
            made.append(directory)
    except OSError as exc:
        remove_dirs(made)
        shown = naming or path
        blocker = _blocker(path, itself=True)
        if exc.errno in (errno.ENOTDIR, errno.EEXIST) and blocker is not None:
            raise OutputError(f"{shown}: cannot write: {blocker} is not a directory") from None
        raise output_error(shown, exc) from None
    return made


def remove_dirs(made: Iterable[Path]) -> None:
    """Remove directories :func:`make_dirs` created, innermost first, if they are empty."""
    for directory in reversed(list(made)):
        with contextlib.suppress(OSError):
            directory.rmdir()


def _stage(path: Path, data: bytes) -> Path:
    """Write ``data`` to a synced temporary file next to ``path``; OutputError if refused."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    except OSError as exc:
        raise output_error(path, exc) from None
    tmp = Path(tmp_name)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        tmp.chmod(0o644)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            tmp.unlink(missing_ok=True)
        if isinstance(exc, OSError):
            raise output_error(path, exc) from None
        raise
    return tmp


def _commit(tmp: Path, path: Path) -> None:
    try:
        tmp.replace(path)
    except OSError as exc:
        with contextlib.suppress(OSError):
            tmp.unlink(missing_ok=True)
        raise output_error(path, exc) from None


def atomic_write(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` via a synced temporary file next to it (mode 0644).

    Raises OutputError (path and reason) when the place refuses; the old file is intact and
    no temporary file is left.
    """
    _commit(_stage(path, data), path)


def atomic_write_all(files: Sequence[tuple[Path, bytes]]) -> None:
    """:func:`atomic_write` for several files that belong together (a report as JSON and
    Markdown): every file is staged before any is moved into place, so a full disk or a
    blocked path leaves all of them as they were."""
    for path, _ in files:
        if path.is_dir():  # the one thing that fails a rename after staging succeeded
            raise OutputError(f"{path}: cannot write: is a directory, not a file")
    staged: list[tuple[Path, Path]] = []
    try:
        for path, data in files:
            staged.append((_stage(path, data), path))
    except BaseException:
        for tmp, _ in staged:
            with contextlib.suppress(OSError):
                tmp.unlink(missing_ok=True)
        raise
    for index, (tmp, path) in enumerate(staged):
        try:
            _commit(tmp, path)
        except BaseException:
            for later, _ in staged[index + 1 :]:
                with contextlib.suppress(OSError):
                    later.unlink(missing_ok=True)
            raise


def atomic_write_text(path: Path, text: str) -> None:
    """:func:`atomic_write` for text, UTF-8 encoded."""
    atomic_write(path, text.encode("utf-8"))
