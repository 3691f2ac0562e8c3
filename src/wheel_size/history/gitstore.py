"""The history on a data branch (default ``wheel-size-data``), written with real git.

Each write is fetch → apply → commit → push. A rejected push (someone else pushed first)
means: fetch again, re-apply the same records on top of the new tip, push again, with
jittered backoff. Records are one file per run, so re-applying never conflicts; after the
last attempt the caller gets one clear error and the records are still in its hands.

The backoff is exponential with jitter (``backoff`` × 2^(attempt-1), capped at
``max_backoff``, each wait drawn from its upper half), and a lost race may be retried
``attempts`` times (default 30): many jobs ending at once (36 writers on a loaded runner
gave up after 10 linear attempts) spread out until every night is stored. A refusal that
is no race (a protected branch, a hook) stops after :data:`REFUSED_ATTEMPTS`.
"""

from __future__ import annotations

import datetime as dt
import os
import random
import re
import subprocess
import time
import urllib.parse
from collections.abc import Callable, Sequence
from pathlib import Path
from types import TracebackType

from wheel_size.errors import HistoryError
from wheel_size.fileio import atomic_write
from wheel_size.history.gitrun import (
    DEFAULT_GIT_TIMEOUT,
    TIMEOUT_ENV,
    GitTimedOut,
    auth_env,
    git_timeout,
    low_speed_config,
    resolve_remote,
    run_git,
    split_credentials,
)
from wheel_size.history.model import RunRecord
from wheel_size.history.recordfile import note_skipped
from wheel_size.history.scratch import ScratchDir, sweep_stale
from wheel_size.history.store import Change, T, WriteResult, apply_runs, read_run_tree
from wheel_size.history.treepath import note_link

__all__ = [
    "DEFAULT_DATA_BRANCH",
    "DEFAULT_GIT_TIMEOUT",
    "GitBranchStore",
    "actions_remote",
    "redact_url",
    "window_runs",
]

DEFAULT_DATA_BRANCH = "wheel-size-data"
_BOT_NAME = "github-actions[bot]"
_BOT_EMAIL = "41898282+github-actions[bot]@users.noreply.github.com"
_SYMLINK, _GITLINK = "120000", "160000"  # git's modes of a symbolic link and a submodule
_REJECTED = ("[rejected]", "[remote rejected]", "non-fast-forward", "fetch first", "stale info")
# What a push that lost a race says (another writer moved the branch); other refusals of the
# remote (a hook, a protected branch) are not worth waiting for.
_RACE = (
    "non-fast-forward", "fetch first", "stale info", "cannot lock ref", "failed to update ref",
    "incorrect old value", "reference already exists",
)  # fmt: skip
DEFAULT_PUSH_ATTEMPTS = 30
REFUSED_ATTEMPTS = 3


#: What a run reads and writes on the data branch (sparse-checkout patterns): the records,
#: the investigation notes, the bisections' state (bisect/keep.py), the resolved downloads
#: (deps/nightly.py), and the README, report and dashboard at the root. Anything else
#: anyone pushed stays on the branch but is neither fetched nor written to disk.
DATA_PATHS = (
    "/runs/",
    "/investigations/",
    "/bisections/",
    "/deps/",
    "/README.md",
    "/report.md",
    "/index.html",
)
_DATA_FILES = frozenset(p.strip("/") for p in DATA_PATHS if not p.endswith("/"))
_DATA_DIRS = tuple(p.strip("/") + "/" for p in DATA_PATHS if p.endswith("/"))


#: A read of a known window checks out only that window's ``runs/`` (one pattern a day up
#: to this many days, one a month up to :data:`MAX_WINDOW_MONTHS`); longer or open windows,
#: any other read and every write check out the whole ``runs/``.
MAX_WINDOW_DAYS = 31
MAX_WINDOW_MONTHS = 24


def _in_data_paths(path: str, patterns: Sequence[str] = DATA_PATHS) -> bool:
    if patterns is DATA_PATHS:
        return path in _DATA_FILES or path.startswith(_DATA_DIRS)
    return any(
        path.startswith(p.strip("/") + "/") if p.endswith("/") else path == p.strip("/")
        for p in patterns
    )


def window_runs(since: dt.date | None, until: dt.date | None) -> tuple[str, ...] | None:
    """The sparse patterns of the ``runs/`` a read of ``since``..``until`` opens (records
    lie in ``runs/YYYY/MM/YYYY-MM-DD/``), or None for the whole ``runs/``."""
    if since is None or until is None or until < since:
        return None
    days = (until - since).days + 1
    if days <= MAX_WINDOW_DAYS:
        return tuple(
            f"/runs/{d:%Y}/{d:%m}/{d.isoformat()}/"
            for d in (since + dt.timedelta(days=n) for n in range(days))
        )
    months = (until.year - since.year) * 12 + until.month - since.month + 1
    if months > MAX_WINDOW_MONTHS:
        return None
    first = since.year * 12 + since.month - 1
    return tuple(
        f"/runs/{(first + n) // 12:04d}/{(first + n) % 12 + 1:02d}/" for n in range(months)
    )


def _covers(runs: tuple[str, ...] | None, since: dt.date | None, until: dt.date | None) -> bool:
    """Whether the checked-out ``runs`` patterns hold every day of the window."""
    if runs is None:
        return True
    wanted = window_runs(since, until)
    if wanted is None:
        return False
    have = set(runs)
    return all(p in have or p[: len("/runs/YYYY/MM/")] in have for p in wanted)


_NTFS_SHORT_GIT = re.compile(r"git~\d+")


def refused_name(path: str) -> bool:
    """A tree path git refuses to check out (its ``verify_path`` with the NTFS and HFS
    protections on, as by default): an empty, ``.`` or ``..`` component, ``.git`` in any
    case or with trailing dots or spaces, or its NTFS short name ``GIT~1``."""
    for part in path.split("/"):
        if part in ("", ".", ".."):
            return True
        bare = part.casefold().rstrip(". ")
        if bare == ".git" or _NTFS_SHORT_GIT.fullmatch(bare):
            return True
    return False


def redact_url(url: str) -> str:
    """The URL with any password or token replaced, fit for logs and error messages."""
    parts = urllib.parse.urlsplit(url)
    if parts.password is None and "@" not in parts.netloc:
        return url
    host = parts.hostname or ""
    if parts.port:
        host = f"{host}:{parts.port}"
    user = parts.username or ""
    return urllib.parse.urlunsplit(parts._replace(netloc=f"{user}:***@{host}" if user else host))


def actions_remote(repository: str, token: str, server_url: str | None = None) -> str:
    """``https://x-access-token:TOKEN@host/owner/repo.git`` for the repository of a workflow."""
    server = urllib.parse.urlsplit(server_url or "https://github.com")
    if not server.hostname:
        raise HistoryError(f"GITHUB_SERVER_URL {server_url!r} is not a URL")
    netloc = server.hostname + (f":{server.port}" if server.port else "")
    quoted = urllib.parse.quote(token, safe="")
    return f"{server.scheme or 'https'}://x-access-token:{quoted}@{netloc}/{repository}.git"


class GitBranchStore:
    """A history store on one branch of a git remote (a URL or a local path).

    Every git process is bounded by ``timeout`` seconds (default
    :data:`DEFAULT_GIT_TIMEOUT`, or ``$WHEEL_SIZE_GIT_TIMEOUT``); credentials in an http(s)
    URL reach git through its environment, never its command line.
    """

    def __init__(
        self,
        remote: str,
        branch: str = DEFAULT_DATA_BRANCH,
        *,
        secret: str | None = None,
        attempts: int = DEFAULT_PUSH_ATTEMPTS,
        backoff: float = 1.0,
        sleep: Callable[[float], None] = time.sleep,
        timeout: float | None = None,
        max_backoff: float = 30.0,
        rng: random.Random | None = None,
    ) -> None:
        if not branch or branch.startswith("-") or " " in branch:
            raise HistoryError(f"data branch {branch!r} is not a usable branch name")
        self.timeout = git_timeout(timeout)
        url, auth = split_credentials(resolve_remote(remote))
        self.remote = url
        self.branch = branch
        self._secrets = [s for s in (secret, auth.password if auth else None) if s]
        self._auth_env = auth_env(url, auth, os.environ)
        self.attempts = max(1, attempts)
        self.backoff = backoff
        self.max_backoff = max_backoff
        self._rng = rng or random.Random()
        self._sleep = sleep
        self.description = f"data branch {branch} of {redact_url(url)}"
        sweep_stale(self.timeout)  # clones a killed run left behind
        self._scratch = ScratchDir()
        self._tmp = self._scratch.path
        self.workdir = self._tmp / "tree"
        self._synced = False
        self._sparse_set: tuple[str, ...] | None = None  # the patterns git has
        # The runs/ patterns wanted (None: all of runs/): narrowed only for a first read of
        # a known window, widened for any other read and for every write.
        self._runs: tuple[str, ...] | None = None

    # -- lifecycle -------------------------------------------------------------------------

    def close(self) -> None:
        self._scratch.remove()

    def __enter__(self) -> GitBranchStore:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    # -- git ---------------------------------------------------------------------------

    def _redact(self, text: str) -> str:
        for secret in self._secrets:
            text = text.replace(secret, "***")
            text = text.replace(urllib.parse.quote(secret, safe=""), "***")
        return text.replace(self.remote, redact_url(self.remote))

    def _git(
        self, *args: str, check: bool = True, remote: bool = False
    ) -> subprocess.CompletedProcess[str]:
        """Run git in the scratch clone; ``remote`` operations get the credentials and
        git's low-speed limit. Every one is bounded by the timeout."""
        env = dict(os.environ, GIT_TERMINAL_PROMPT="0", LC_ALL="C", LANG="C")
        if remote:
            env.update(self._auth_env)
        cmd = [
            "git",
            "-c", "credential.helper=",
            "-c", "commit.gpgsign=false",
            "-c", "core.hooksPath=/dev/null",
            "-c", "protocol.ext.allow=never",
            "-c", f"user.name={_BOT_NAME}",
            "-c", f"user.email={_BOT_EMAIL}",
            *(low_speed_config(self.timeout) if remote else []),
            *args,
        ]  # fmt: skip
        try:
            proc = run_git(cmd, cwd=self.workdir, env=env, timeout=self.timeout)
        except FileNotFoundError:
            raise HistoryError("git is not installed; the data-branch store needs it") from None
        except GitTimedOut as exc:
            after = (
                "the push may or may not have landed; a rerun stores the same records once"
                if args[0] == "push"
                else "nothing was stored"
            )
            raise HistoryError(
                f"{self.description}: git {args[0]} {exc} and was stopped ({after}; "
                f"the limit is --git-timeout or {TIMEOUT_ENV})"
            ) from None
        if check and proc.returncode != 0:
            raise HistoryError(f"{self.description}: git {args[0]} failed: {self._last_line(proc)}")
        return proc

    def _last_line(self, proc: subprocess.CompletedProcess[str]) -> str:
        lines = [ln.strip() for ln in (proc.stderr + "\n" + proc.stdout).splitlines()]
        lines = [ln for ln in lines if ln and not ln.startswith(("hint:", "To ", "Done"))]
        refused = [ln for ln in lines if "dubious ownership" in ln]  # git's own reason, not
        if refused:  # the "Could not read from remote repository" that follows it
            return self._redact(
                f"{refused[0]} (git refuses a repository another user owns; mark it safe: "
                "git config --global --add safe.directory PATH)"
            )
        interesting = [ln for ln in lines if "error" in ln.lower() or "fatal" in ln.lower()]
        picked = (interesting or lines or [f"exit status {proc.returncode}"])[-1]
        return self._redact(picked)

    def _rejected_reason(self, proc: subprocess.CompletedProcess[str]) -> str:
        """Why the remote refused: its own words (``remote:`` lines, e.g. a protected
        branch), else the ``[rejected]`` reason; git's closing "failed to push" says nothing."""
        lines = [ln.strip() for ln in (proc.stderr + "\n" + proc.stdout).splitlines()]
        said = [ln[len("remote:") :].strip() for ln in lines if ln.startswith("remote:")]
        progress = ("Resolving", "Counting", "Compressing", "Total", "Processing", "Writing")
        said = [ln for ln in said if ln and "%" not in ln and not ln.startswith(progress)]
        if said:
            return self._redact("; ".join(said)[:300])
        for ln in lines:
            if any(marker in ln for marker in _REJECTED):
                return self._redact(" ".join(ln.split()))
        return self._last_line(proc)

    def _sync(self) -> bool:
        """Make the work tree exactly the remote branch tip; False if the branch is new."""
        if not (self.workdir / ".git").exists():
            self.workdir.mkdir(parents=True, exist_ok=True)
            self._git("init", "-q")
        # Partial: blobs come only for the paths checked out (DATA_PATHS), so a 2 GiB file
        # or 10^5 stray files elsewhere on the branch are never downloaded or written. A
        # server without partial clone ignores the filter (git says so; we drop the line).
        fetch = self._git(
            "fetch", "-q", "--depth", "1", "--no-tags", "--filter=blob:none", "--", self.remote,
            f"+refs/heads/{self.branch}:refs/remotes/data/{self.branch}",
            check=False, remote=True,
        )  # fmt: skip
        if fetch.returncode == 0:
            self._check_out(f"refs/remotes/data/{self.branch}")
            self._git("clean", "-q", "-fdx")
            self._drop_links()
            self._synced = True
            return True
        if "couldn't find remote ref" not in fetch.stderr:
            raise HistoryError(f"{self.description}: git fetch failed: {self._last_line(fetch)}")
        # The branch does not exist yet: start an orphan with an empty tree.
        self._git("symbolic-ref", "HEAD", f"refs/heads/{self.branch}")
        self._git("update-ref", "-d", f"refs/heads/{self.branch}", check=False)
        self._git("read-tree", "--empty")
        self._git("clean", "-q", "-fdx")
        self._synced = True
        return False

    def _patterns(self) -> tuple[str, ...]:
        if self._runs is None:
            return DATA_PATHS
        return (*self._runs, *(p for p in DATA_PATHS if p != "/runs/"))

    def _sparse(self) -> None:
        """Check out only what a run reads and writes (:data:`DATA_PATHS`, ``runs/`` perhaps
        narrowed to a read's window); every other entry of the branch stays in the index,
        untouched, and in the next commit. Widening checks out the rest (blobs on demand)."""
        patterns = self._patterns()
        if self._sparse_set != patterns:
            self._git("sparse-checkout", "set", "--no-cone", *patterns, remote=True)
            self._sparse_set = patterns

    def _widen(self) -> None:
        """The whole ``runs/`` from here on (a synced tree gets the rest checked out)."""
        if self._runs is None:
            return
        self._runs = None
        if self._synced and self._sparse_set is not None:
            self._sparse()
            self._drop_links()  # the newly checked-out part is read as files only

    def _check_out(self, ref: str) -> None:
        """The branch tip as the work tree (the data paths only). Entries whose names git
        refuses to check out (``..``, ``.git``, ``GIT~1``, anyone can push them) would make
        every later run fail: they are left out with one warning (counted), and this run's
        commit removes them."""
        listing = self._git("ls-tree", "-r", "-z", "--full-tree", ref).stdout
        entries = [e for e in listing.split("\0") if e]
        refused = [e.partition("\t")[2] for e in entries if refused_name(e.partition("\t")[2])]
        self._sparse()
        if not refused:  # remote: blobs of a partial fetch come on demand, with credentials
            self._git("checkout", "-q", "-f", "-B", self.branch, ref, remote=True)
            return
        self._git("update-ref", f"refs/heads/{self.branch}", ref)
        self._git("symbolic-ref", "HEAD", f"refs/heads/{self.branch}")
        self._git("read-tree", "--empty")
        kept = []
        for entry in entries:
            meta, _, path = entry.partition("\t")
            mode, _, rest = meta.partition(" ")
            sha = rest.rpartition(" ")[2]
            if not refused_name(path):
                kept.append(f"{mode},{sha},{path}")
        for start in range(0, len(kept), 500):
            args = [a for info in kept[start : start + 500] for a in ("--cacheinfo", info)]
            self._git("update-index", "--add", *args)
        wanted = [info.split(",", 2)[2] for info in kept]
        patterns = self._patterns()
        outside = [p for p in wanted if not _in_data_paths(p, patterns)]
        for start in range(0, len(outside), 500):
            self._git("update-index", "--skip-worktree", "--", *outside[start : start + 500])
        inside = [p for p in wanted if _in_data_paths(p, patterns)]
        for start in range(0, len(inside), 500):
            self._git("checkout-index", "-f", "--", *inside[start : start + 500], remote=True)
        example = ", ".join(repr(p[:80]) for p in refused[:3])
        note_skipped(
            "(names git refuses)",
            f"{len(refused)} entr{'y' if len(refused) == 1 else 'ies'} on the data branch with a "
            f"name git refuses to check out ({example}); left out, a commit of this run "
            "removes them",
        )

    def _drop_links(self) -> None:
        """Take every symbolic link and submodule (gitlink) out of the checkout and the
        index, naming each: the tree we read and write then holds only files and real
        directories, and a commit of this run drops them from the branch (they are not data;
        see :mod:`wheel_size.history.treepath`)."""
        listing = self._git("ls-files", "-s", "-z").stdout
        links: list[tuple[str, str]] = []
        for entry in listing.split("\0"):
            meta, _, path = entry.partition("\t")
            mode = meta.split(" ", 1)[0]
            if mode in (_SYMLINK, _GITLINK) and path:
                links.append((mode, path))
        then = "; left out, a commit of this run removes it"
        for start in range(0, len(links), 200):
            # update-index takes paths literally (``git rm`` would read them as pathspecs)
            batch = links[start : start + 200]
            self._git("update-index", "--force-remove", "--", *(p for _, p in batch))
        for mode, path in links:
            where = self.workdir / path
            if mode == _SYMLINK:
                if where.is_symlink():
                    where.unlink()
                note_link(path, then=then)
            else:
                note_link(path, "a submodule (gitlink)", then)

    # -- store protocol ------------------------------------------------------------------

    def read_runs(
        self, since: dt.date | None = None, until: dt.date | None = None
    ) -> list[RunRecord]:
        if not self._synced:
            self._runs = window_runs(since, until)  # the first read's window only
            self._sync()
        elif not _covers(self._runs, since, until):
            self._widen()
        return read_run_tree(self.workdir, since, until, label=f"{self.branch}:")

    def read_tree(self, read: Callable[[Path], T]) -> T:
        """Run ``read`` over the synced branch tree (the investigation notes beside the runs)."""
        self._widen()
        if not self._synced:
            self._sync()
        return read(self.workdir)

    def update(self, change: Change, message: str) -> WriteResult:
        """Apply ``change`` on the branch tip and push; on a race, redo it on the new tip."""
        last = ""
        self._runs = None  # a change sees every stored record (each _sync checks it out)
        for attempt in range(1, self.attempts + 1):
            self._sync()
            changed = change(self.workdir)
            if not changed:
                return WriteResult()
            readme = self.workdir / "README.md"
            if not readme.exists():  # a new branch says what it is
                from wheel_size.render import render

                atomic_write(readme, render("data-branch-readme.md.j2").encode())
                changed.append("README.md")
            self._git("add", "-A", "--", ".")
            if not self._git("status", "--porcelain").stdout.strip():
                return WriteResult()
            self._git("commit", "-q", "-m", message)
            push = self._git(
                "push", "--porcelain", "--", self.remote, f"HEAD:refs/heads/{self.branch}",
                check=False, remote=True,
            )  # fmt: skip
            if push.returncode == 0:
                sha = self._git("rev-parse", "HEAD").stdout.strip()
                return WriteResult(changed=changed, commit=sha)
            text = push.stdout + push.stderr
            if not any(marker in text for marker in _REJECTED):
                hint = ""
                if any(m in text for m in ("403", "Permission to", "denied", "Authentication")):
                    hint = " (the token needs `contents: write` on the repository)"
                raise HistoryError(
                    f"{self.description}: git push failed: {self._last_line(push)}{hint}"
                )
            last = self._rejected_reason(push)
            raced = any(marker in text for marker in _RACE)
            if not raced and attempt >= min(self.attempts, REFUSED_ATTEMPTS):
                raise HistoryError(
                    f"{self.description}: push rejected after {attempt} attempts "
                    f"(last: {last}); nothing was stored"
                )
            if attempt < self.attempts and self.backoff > 0:
                self._sleep(self.delay(attempt))
        raise HistoryError(
            f"{self.description}: push rejected after {self.attempts} attempts "
            f"(last: {last}); nothing was stored"
        )

    def delay(self, attempt: int) -> float:
        """Seconds to wait after losing push ``attempt``: exponential, capped, jittered
        (the upper half of the span, so two writers that collided rarely collide again)."""
        span = min(self.max_backoff, self.backoff * 2.0 ** min(attempt - 1, 30))
        return self._rng.uniform(span / 2, span)

    def write_runs(self, runs: Sequence[RunRecord], message: str | None = None) -> WriteResult:
        runs = list(runs)
        unchanged = 0

        def change(root: Path) -> list[str]:
            nonlocal unchanged
            result = WriteResult()
            changed = apply_runs(root, runs, result)
            unchanged = result.unchanged
            return changed

        result = self.update(change, message or _commit_message(runs))
        result.unchanged = unchanged
        return result


def _commit_message(runs: Sequence[RunRecord]) -> str:
    dates = sorted({r.date for r in runs})
    if not dates:
        return "wheel-size: no runs"
    span = str(dates[0]) if len(dates) == 1 else f"{dates[0]}..{dates[-1]}"
    return f"wheel-size: record {len(runs)} nightly run(s) of {span}"
