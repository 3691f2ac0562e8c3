"""The history options of the issue's "Reproduce" command, paste-able anywhere.

The command must work when copied from the issue into a terminal: it names the data
branch and a public remote (``--data-remote``/``--data-branch`` as the run used them),
never the runner's local paths, never credentials a remote URL may carry.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit, urlunsplit

__all__ = ["public_remote", "store_reproduce_args"]

DEFAULT_SERVER = "https://github.com"
_REPO = re.compile(r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$")


def public_remote(remote: str | None, repository: str | None, server_url: str | None) -> str | None:
    """``remote`` without user or token; a local path (or nothing) becomes the
    repository's remote on the server, since the runner's paths mean nothing elsewhere."""
    if remote:
        parts = urlsplit(remote)
        if parts.scheme in ("https", "http", "ssh", "git") and parts.hostname:
            host = parts.hostname + (f":{parts.port}" if parts.port else "")
            return urlunsplit((parts.scheme, host, parts.path, "", ""))
    if repository and _REPO.match(repository):
        return f"{(server_url or DEFAULT_SERVER).rstrip('/')}/{repository}.git"
    return None


def store_reproduce_args(
    *,
    data_branch: str | None,
    data_remote: str | None,
    repository: str | None,
    server_url: str | None = None,
    default_branch: str = "wheel-size-data",
) -> tuple[str, ...]:
    """``--data-remote URL --data-branch NAME`` when the run used a data branch; nothing
    for a local ``--history`` directory (it exists only on the runner)."""
    if not data_branch and not data_remote:
        return ()
    remote = public_remote(data_remote, repository, server_url)
    out: tuple[str, ...] = ("--data-remote", remote) if remote else ()
    return (*out, "--data-branch", data_branch or default_branch)
