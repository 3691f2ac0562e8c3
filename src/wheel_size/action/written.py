"""What an action opens and writes in the workspace, from its inputs: the local data remote
git must be allowed to open, and the paths handed to the workspace's owner afterwards
(:class:`~wheel_size.action.workspace.Workspace`)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from wheel_size.action.catalog import ACTIONS
from wheel_size.action.inputs import action_input
from wheel_size.action.workspace import Workspace
from wheel_size.errors import InputError

__all__ = ["local_remote", "written_paths"]


def local_remote(env: Mapping[str, str], workspace: Workspace) -> list[Path]:
    """A ``data-remote`` that is a path or a ``file://`` URL (git's rule for a path: no
    ``scheme://`` and no ``host:`` before the first slash): git opens that repository too."""
    remote = action_input(env, "data-remote").removeprefix("file://")
    colon, slash = remote.find(":"), remote.find("/")
    if not remote or "://" in remote or not (colon < 0 or 0 <= slash < colon):
        return []
    path = Path(os.path.normpath(workspace.root / Path(remote).expanduser()))
    return [path, path / ".git"]


def written_paths(spec: str, env: Mapping[str, str], workspace: Workspace) -> list[Path]:
    """What the action ``spec`` writes into the workspace, for :meth:`Workspace.hand_over`
    (the same inputs and defaults the modes use; a path an input refuses is not written)."""
    read = ACTIONS[spec].read(env)

    def path(name: str) -> Path | None:
        try:
            return workspace.output(name, read.text(name))
        except InputError:
            return None

    def with_json(report: Path | None) -> list[Path | None]:
        return [report, report.with_suffix(".json") if report else None]

    found: list[Path | None]
    if spec == "split":
        found = [path("split-output-dir")]
    elif spec in ("audit", "check"):
        found = with_json(path("report-path" if spec == "audit" else "check-report-path"))
    else:
        found = with_json(path("report-path"))
        if read.text("history-dir"):
            found.append(path("history-dir"))
        found += local_remote(env, workspace)[:1]  # a data remote in the workspace
        if read.text("bisect-build-workflow") and read.text("bisect-state"):
            found.append(path("bisect-state"))  # the bisections' state files
    return [p for p in found if p is not None]
