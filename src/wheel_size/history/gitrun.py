"""Running git against a remote we do not control: bounded in time, token out of argv.

A remote can accept a connection and never answer; git would wait for ever (the job then
sits until the runner's 6-hour limit). Each git process gets a hard deadline and runs in
its own session, so on expiry the whole process group dies — git's helpers included
(``git-remote-http``, ``ssh``, ``upload-pack``) — and HTTP transfers also carry git's own
low-speed limit, which usually ends a stall earlier with git's own message.

Credentials never appear on a command line (``/proc/<pid>/cmdline`` is readable by every
process of the runner): a password or token in an http(s) URL is taken out of the URL and
handed to git as an ``Authorization`` header through ``GIT_CONFIG_*`` variables of the
child's environment, which only its own user can read.
"""

from __future__ import annotations

import base64
import contextlib
import os
import signal
import subprocess
import threading
import time
import urllib.parse
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from wheel_size import interrupts
from wheel_size.errors import InputError

__all__ = [
    "DEFAULT_GIT_TIMEOUT",
    "TIMEOUT_ENV",
    "GitTimedOut",
    "RemoteAuth",
    "auth_env",
    "git_timeout",
    "low_speed_config",
    "resolve_remote",
    "run_git",
    "split_credentials",
]

DEFAULT_GIT_TIMEOUT = 120.0
"""Seconds one git process may take (fetch, push, …) unless configured otherwise."""
TIMEOUT_ENV = "WHEEL_SIZE_GIT_TIMEOUT"
_LOW_SPEED_BYTES = 1000  # bytes/s under which a transfer counts as stalled
_REAP_SECONDS = 5.0  # after the kill: how long to wait for the pipes to close
_POLL_SECONDS = 0.25  # while git runs: how often a dropped interrupt is looked for


class GitTimedOut(Exception):
    """A git process overran its deadline and was killed with its process group."""

    def __init__(self, seconds: float) -> None:
        super().__init__(f"did not finish within {seconds:g} s")
        self.seconds = seconds


@dataclass(frozen=True)
class RemoteAuth:
    """What an http(s) remote's URL carried as credentials, kept out of the URL."""

    username: str
    password: str

    def header(self) -> str:
        raw = f"{self.username}:{self.password}".encode()
        return "AUTHORIZATION: basic " + base64.b64encode(raw).decode("ascii")


def git_timeout(value: float | None = None, env: Mapping[str, str] | None = None) -> float:
    """The deadline of one git process: ``value`` (a flag), else ``$WHEEL_SIZE_GIT_TIMEOUT``,
    else :data:`DEFAULT_GIT_TIMEOUT`."""
    if value is None:
        text = (os.environ if env is None else env).get(TIMEOUT_ENV, "").strip()
        if not text:
            return DEFAULT_GIT_TIMEOUT
        try:
            value = float(text)
        except ValueError:
            raise InputError(
                f"{TIMEOUT_ENV} must be a number of seconds, not {text[:40]!r}"
            ) from None
        source = TIMEOUT_ENV
    else:
        source = "--git-timeout"
    if not value > 0 or value == float("inf"):
        raise InputError(f"{source} must be a positive number of seconds, not {value:g}")
    return value


def low_speed_config(timeout: float) -> list[str]:
    """``-c`` options that make git's HTTP transport give up on a stalled transfer by itself
    (well before the hard deadline, so the error is git's own words)."""
    seconds = max(1, int(timeout / 2))
    return ["-c", f"http.lowSpeedLimit={_LOW_SPEED_BYTES}", "-c", f"http.lowSpeedTime={seconds}"]


def _is_local_path(remote: str) -> bool:
    """Git's own rule: a remote with no ``scheme://`` and no ``host:`` before the first
    slash is a path on this machine."""
    if "://" in remote:
        return False
    colon = remote.find(":")
    slash = remote.find("/")
    return colon < 0 or (0 <= slash < colon)


def resolve_remote(remote: str, base: Path | None = None) -> str:
    """A relative path made absolute against ``base`` (default the working directory), since
    git runs in a scratch directory elsewhere; URLs pass unchanged. Refuses what git would
    read as an option."""
    remote = remote.strip()
    if not remote:
        raise InputError("--data-remote is empty")
    if _is_local_path(remote):
        path = Path(remote).expanduser()
        return str(path if path.is_absolute() else (base or Path.cwd()) / path)
    if remote.startswith("-"):
        raise InputError(f"--data-remote {remote[:60]!r} is not a git URL")
    return remote


def split_credentials(remote: str) -> tuple[str, RemoteAuth | None]:
    """``https://user:token@host/x.git`` → (``https://host/x.git``, the credentials).
    Other URLs (ssh, git://, paths, http without a password) are returned unchanged."""
    parts = urllib.parse.urlsplit(remote)
    if parts.scheme.lower() not in ("http", "https") or parts.password is None:
        return remote, None
    host = parts.hostname or ""
    if ":" in host:  # IPv6 literal
        host = f"[{host}]"
    if parts.port:
        host = f"{host}:{parts.port}"
    auth = RemoteAuth(
        urllib.parse.unquote(parts.username or ""), urllib.parse.unquote(parts.password)
    )
    return urllib.parse.urlunsplit(parts._replace(netloc=host)), auth


def auth_env(url: str, auth: RemoteAuth | None, env: Mapping[str, str]) -> dict[str, str]:
    """Environment entries that give git ``auth`` for ``url`` only, appended after any
    ``GIT_CONFIG_*`` entries the caller's environment already has."""
    if auth is None:
        return {}
    try:
        count = int(env.get("GIT_CONFIG_COUNT", "0") or "0")
    except ValueError:
        count = 0
    return {
        "GIT_CONFIG_COUNT": str(count + 1),
        f"GIT_CONFIG_KEY_{count}": f"http.{url}.extraheader",
        f"GIT_CONFIG_VALUE_{count}": auth.header(),
    }


def _kill_group(proc: subprocess.Popen[str]) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)


_DEFERRED_SIGNALS = (signal.SIGINT, signal.SIGTERM)


@contextlib.contextmanager
def _signals_deferred() -> Iterator[None]:
    """Hold SIGINT/SIGTERM while a child starts, then deliver them to the handlers in place.

    Between ``fork`` and the moment the caller holds the ``Popen`` object an interrupt
    would leave a running git nobody kills; held here, it arrives once the child can be.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    pending: list[int] = []
    previous = {}
    for signum in _DEFERRED_SIGNALS:
        with contextlib.suppress(ValueError, OSError):
            previous[signum] = signal.signal(signum, lambda n, _f: pending.append(n))
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, signal.SIG_DFL if handler is None else handler)
        for held in pending:
            signal.raise_signal(held)


def run_git(
    cmd: Sequence[str], *, cwd: Path, env: Mapping[str, str], timeout: float
) -> subprocess.CompletedProcess[str]:
    """Run ``cmd`` (``git …``) to completion within ``timeout`` seconds.

    The process leads a new session (no terminal to prompt on, and one group to kill);
    on expiry, or when we are interrupted (Ctrl-C, SIGTERM turned into an exception), the
    whole group is killed before the exception goes on. An interrupt whose exception Python
    dropped (:mod:`wheel_size.interrupts`) is asked for before git starts and every
    :data:`_POLL_SECONDS` while it runs, so it never waits for the timeout. Raises
    :class:`GitTimedOut` and ``FileNotFoundError`` (no git).
    """
    proc: subprocess.Popen[str] | None = None
    deadline = time.monotonic() + timeout
    try:
        interrupts.raise_if_interrupted()
        with _signals_deferred():
            proc = subprocess.Popen(
                list(cmd),
                cwd=cwd,
                env=dict(env),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                start_new_session=True,
            )
        while True:
            left = deadline - time.monotonic()
            try:
                out, err = proc.communicate(timeout=max(0.0, min(_POLL_SECONDS, left)))
                break
            except subprocess.TimeoutExpired:
                interrupts.raise_if_interrupted()
                if left <= _POLL_SECONDS:
                    raise
    except subprocess.TimeoutExpired:
        assert proc is not None
        _kill_group(proc)
        _reap(proc)
        raise GitTimedOut(timeout) from None
    except BaseException:
        interrupts.acknowledge()  # this exception answers every signal so far
        if proc is not None:
            _kill_group(proc)
            _reap(proc)
        raise
    return subprocess.CompletedProcess(list(cmd), proc.returncode, out, err)


def _reap(proc: subprocess.Popen[str]) -> None:
    """Collect a killed git; a helper that left our group must not hold us on its pipes."""
    try:
        proc.communicate(timeout=_REAP_SECONDS)
    except subprocess.TimeoutExpired:
        for pipe in (proc.stdout, proc.stderr):
            if pipe is not None:
                pipe.close()
        proc.wait()
