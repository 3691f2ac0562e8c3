"""The runner's workspace as the container sees it: where inputs may point, what outputs
say, and who owns what the Action writes there.

A container action runs as root in a workspace the runner mounts at /github/workspace and
owns as another user (uid 1001 on github.com). Three things follow:

* A later step sees the workspace under another path (``${{ github.workspace }}`` on the
  host), so every path output is relative to the workspace, and every path input may be
  relative or absolute (the runner rewrites a value that starts with the host's workspace to
  the container's) but must stay inside it.
* Files written as root cannot be removed by the runner's user (``rm -rf``, ``git clean``,
  the next job's checkout): everything written is handed to the workspace's owner.
* Git refuses a repository owned by another user ("dubious ownership"); the repositories
  the Action opens get ``safe.directory`` through ``GIT_CONFIG_GLOBAL`` of its own git
  processes, never by writing the user's global configuration.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable, Mapping, MutableMapping
from dataclasses import dataclass, replace
from pathlib import Path

from wheel_size.errors import InputError

__all__ = ["DEFAULT_WORKSPACE", "Workspace"]

DEFAULT_WORKSPACE = "/github/workspace"
_MAGIC = frozenset("*?[")


def host_workspace(env: Mapping[str, str]) -> Path | None:
    """The workspace's path on the host: ``RUNNER_WORKSPACE`` (the host's work folder of
    the repository) and the repository's name, as actions/runner lays it out; None when
    the environment does not say (not in a container action)."""
    runner = env.get("RUNNER_WORKSPACE", "")
    name = env.get("GITHUB_REPOSITORY", "").rpartition("/")[2]
    if not runner.startswith("/") or not name:
        return None
    return Path(os.path.normpath(runner)) / name


def _inside(path: Path, root: Path) -> bool:
    return path == root or path.is_relative_to(root)


@dataclass(frozen=True)
class Workspace:
    """The workspace directory (absolute, as the process sees it) and its owner."""

    root: Path
    uid: int
    gid: int
    # The workspace as the host names it (``${{ github.workspace }}``): the runner rewrites
    # only the start of an input's value, so the second line of a multi-line path input
    # still names the host's path; each line is mapped like the first.
    host: Path | None = None

    @classmethod
    def of(cls, env: Mapping[str, str]) -> Workspace:
        """``GITHUB_WORKSPACE`` (the container's default when unset); an unreadable or
        missing workspace is an input error naming it."""
        return cls.at(Path(env.get("GITHUB_WORKSPACE") or DEFAULT_WORKSPACE), env)

    @classmethod
    def at(cls, path: Path, env: Mapping[str, str] | None = None) -> Workspace:
        """The workspace at ``path`` (with the host's name of it from ``env``); unreadable
        or missing is an input error naming it."""
        if env is not None:
            found = cls.at(path)
            host = host_workspace(env)
            return found if host is None or host == found.root else replace(found, host=host)
        root = Path(os.path.normpath(Path.cwd() / path))
        try:
            info = root.stat()
            next(root.iterdir(), None)
        except OSError as exc:
            raise InputError(
                f"workspace {root}: cannot read it ({exc.strerror or exc}); the step must run "
                "in a job whose workspace exists (GITHUB_WORKSPACE)"
            ) from None
        return cls(root, info.st_uid, info.st_gid)

    # -- inputs ---------------------------------------------------------------------------

    def _place(self, name: str, item: str) -> Path:
        """``item`` (relative to the workspace, or absolute) normalised, refused outside;
        the host's name of the workspace is read as the workspace."""
        if self.host is not None:
            host = self.host.as_posix()
            if item == host or item.startswith(host + "/"):
                item = self.root.as_posix() + item[len(host) :]
        joined = Path(os.path.normpath(self.root / item))  # an absolute item replaces root
        if not _inside(joined, self.root):
            raise InputError(
                f"input {name}: {item} is outside the workspace {self.root}; "
                "give a path inside it (relative paths start at the workspace)"
            )
        return joined

    def files(self, name: str, items: Iterable[str]) -> list[Path]:
        """Every file or directory the paths and glob patterns ``items`` of the input
        ``name`` match, in order, each once. A pattern that matches nothing, a missing path
        and anything outside the workspace (``..``, or a symbolic link leading out) are
        input errors naming the input."""
        found: list[Path] = []
        real_root = self.root.resolve()
        for item in items:
            path = self._place(name, item)
            parts = path.parts
            magic = next((i for i, part in enumerate(parts) if _MAGIC & set(part)), None)
            if magic is None:
                if not path.exists():
                    raise InputError(
                        f"input {name}: {item}: no such file or directory in the workspace"
                    )
                matches = [path]
            else:
                base = Path(*parts[:magic])
                matches = sorted(base.glob(str(Path(*parts[magic:]))))
                if not matches:
                    raise InputError(f"input {name}: {item} matches no file in the workspace")
            for match in matches:
                if not _inside(match.resolve(), real_root):
                    raise InputError(
                        f"input {name}: {item}: {self.relative(match)} leads outside the "
                        "workspace through a symbolic link"
                    )
                if match not in found:
                    found.append(match)
        return found

    def output(self, name: str, value: str, *, directory: bool = False) -> Path:
        """Where the output input ``name`` (a path to write, relative or absolute) points,
        refused outside the workspace; a ``directory`` may be the workspace itself."""
        path = self._place(name, value)
        if path == self.root and not directory:
            raise InputError(f"input {name}: {value} is the workspace itself, not a file in it")
        return path

    def relative(self, path: Path) -> str:
        """``path`` as a later step opens it: relative to the workspace when inside it (the
        container's /github/workspace is another path on the host)."""
        absolute = Path(os.path.normpath(self.root / path))
        if _inside(absolute, self.root):
            return absolute.relative_to(self.root).as_posix() or "."
        return str(path)

    # -- ownership ------------------------------------------------------------------------

    def hand_over(self, *paths: Path | None) -> None:
        """Give ``paths`` (directories recursively) and the directories between them and the
        workspace to the workspace's owner, so the runner's user can remove them. Only as
        root and only inside the workspace; a path that is gone is skipped."""
        if os.geteuid() != 0 or (self.uid, self.gid) == (os.geteuid(), os.getegid()):
            return
        for path in paths:
            if path is None:
                continue
            absolute = Path(os.path.normpath(self.root / path))
            if absolute == self.root or not _inside(absolute, self.root):
                continue
            for parent in reversed(absolute.parents):
                if parent != self.root and _inside(parent, self.root):
                    self._chown(parent)
            self._chown(absolute)
            if absolute.is_dir() and not absolute.is_symlink():
                for top, dirs, files in os.walk(absolute):
                    for entry in (*dirs, *files):
                        self._chown(Path(top) / entry)

    def _chown(self, path: Path) -> None:
        try:
            info = path.lstat()
            if (info.st_uid, info.st_gid) != (self.uid, self.gid):
                os.lchown(path, self.uid, self.gid)
        except FileNotFoundError:
            pass

    # -- git --------------------------------------------------------------------------------

    def trust_for_git(self, env: MutableMapping[str, str], *paths: Path) -> Path:
        """Let the Action's own git processes open the workspace and ``paths`` (local
        repositories it reads, such as a data remote in the workspace) although another user
        owns them; returns the configuration file to remove at the end.

        ``GIT_CONFIG_GLOBAL`` names a private file that includes the user's global
        configuration and adds ``safe.directory`` entries: unlike ``GIT_CONFIG_COUNT``
        entries (which git drops when it starts ``upload-pack`` for a local remote), it
        reaches every git process, and the user's own ``~/.gitconfig`` is never written."""
        home = Path(env.get("HOME") or Path.home())
        xdg = Path(env.get("XDG_CONFIG_HOME") or home / ".config")
        previous = env.get("GIT_CONFIG_GLOBAL")
        includes = [Path(previous)] if previous else [xdg / "git" / "config", home / ".gitconfig"]
        lines = ["[include]", *(f"\tpath = {_quoted(str(p))}" for p in includes if p.is_file())]
        lines.append("[safe]")
        lines += [f"\tdirectory = {_quoted(str(p))}" for p in (self.root, *paths)]
        fd, name = tempfile.mkstemp(prefix="wheel-size-gitconfig-")
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write("\n".join(lines) + "\n")
        env["GIT_CONFIG_GLOBAL"] = name
        return Path(name)


def _quoted(value: str) -> str:
    """A git configuration value in double quotes (backslash and quote escaped)."""
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
