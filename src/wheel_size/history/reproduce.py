"""The history options of the issue's "Reproduce" command, paste-able anywhere.

The command must work when copied from the issue into a terminal: it names the data
branch and the data remote as the run used them (``--data-remote``/``--data-branch``),
never credentials a remote URL may carry.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit, urlunsplit

__all__ = ["public_remote", "store_reproduce_args"]

DEFAULT_SERVER = "https://github.com"
_REPO = re.compile(r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$")
# git's scp-like syntax: [user@]host:path, with no slash before the colon.
_SCP = re.compile(r"^(?:(?P<user>[^@/]+)@)?(?P<rest>[^@/:]+:.*)$")


def public_remote(remote: str | None, repository: str | None, server_url: str | None) -> str | None:
    """The data remote as the run was given it, without a password or token: a URL loses
    its credentials (an ``ssh://`` URL keeps its user name, which is no secret and which
    the server needs), an scp-style ``git@host:path`` and a local path or ``file://`` URL
    stay as they are (the data lives there, nowhere else). Without a remote, the
    repository's own remote on the server (where the data branch then is)."""
    if remote:
        parts = urlsplit(remote)
        if parts.scheme and parts.hostname and len(parts.scheme) > 1:
            host = parts.hostname + (f":{parts.port}" if parts.port else "")
            user = parts.username if "ssh" in parts.scheme and parts.username else None
            netloc = f"{user}@{host}" if user else host
            return urlunsplit((parts.scheme, netloc, parts.path, "", ""))
        scp = _SCP.match(remote)
        if scp:  # user@host:path; a password has no place in this form, drop one anyway
            user = scp.group("user").split(":", 1)[0] if scp.group("user") else ""
            return f"{user}@{scp.group('rest')}" if user else scp.group("rest")
        return remote
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
