"""Run ``wheel-size ARGS`` in this process, through ``main(argv)``, as a subprocess would.

A subprocess costs a Python start and every import of the package again (about 0.3 s of CPU
each); the default loop runs the CLI this way instead. What a subprocess gives for free is
done here by hand, so a test sees the same thing either way:

* the exit status (``main``'s return, or argparse's ``SystemExit``), and stdout and stderr
  as text with universal newlines (as ``subprocess.run(..., text=True)`` decodes them),
  captured at the file descriptors, so a child the command starts (git) is captured too;
* ``env`` added to the environment and ``cwd`` entered for the call only; the environment,
  the working directory, the temporary directory, the umask and the signal handlers are
  put back afterwards, whatever the command changed;
* skipped-record notes left by an earlier test in this process are dropped first (a new
  process starts with none).

What only a real process can prove stays on :func:`conftest.run_cli`: the console script and
``python -m``, crash isolation, signals, resource limits (RLIMIT_AS, RLIMIT_FSIZE).
"""

from __future__ import annotations

import io
import os
import signal
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import IO

__all__ = ["captured", "process_state", "run_main"]

# The handlers a command may install for itself (the data branch's git runner does).
_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


def run_main(
    args: Sequence[str],
    *,
    env: Mapping[str, str] | None = None,
    cwd: Path | str | None = None,
) -> subprocess.CompletedProcess[str]:
    """``wheel-size ARGS`` through ``main``; the result reads as :func:`conftest.run_cli`'s."""
    from wheel_size.cli.main import main
    from wheel_size.history.recordfile import drain_skipped

    words = [str(arg) for arg in args]
    drain_skipped()
    with process_state(env, cwd), captured() as (out, err):
        try:
            status = main(words)
        except SystemExit as exc:  # argparse: --help, --version, a bad option
            status = _exit_status(exc.code)
    return subprocess.CompletedProcess(["wheel-size", *words], status, out.text, err.text)


def _exit_status(code: object) -> int:
    """What a process exiting with ``sys.exit(code)`` reports (a message is printed, 1)."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    print(code, file=sys.stderr)
    return 1


@contextmanager
def process_state(
    env: Mapping[str, str] | None, cwd: Path | str | None, *, replace_env: bool = False
) -> Iterator[None]:
    """Enter ``env`` (added to the environment; with ``replace_env``, the whole of it) and
    ``cwd``; restore all the process-wide state a command may change."""
    saved_env = dict(os.environ)
    saved_cwd = Path.cwd()
    saved_tempdir = tempfile.tempdir
    saved_umask = os.umask(0o022)
    os.umask(saved_umask)
    saved_handlers = {signum: signal.getsignal(signum) for signum in _SIGNALS}
    saved_stdin = sys.stdin
    try:
        if replace_env:
            os.environ.clear()
        if env:
            os.environ.update(env)
        if cwd is not None:
            os.chdir(cwd)
        tempfile.tempdir = None  # read TMPDIR again, as a new process would
        sys.stdin = io.StringIO("")
        yield
    finally:
        sys.stdin = saved_stdin
        for signum, handler in saved_handlers.items():
            if handler is not None:
                signal.signal(signum, handler)
        os.umask(saved_umask)
        tempfile.tempdir = saved_tempdir
        os.chdir(saved_cwd)
        os.environ.clear()
        os.environ.update(saved_env)


def _text(raw: IO[bytes]) -> str:
    """What was written to ``raw``, as ``subprocess.run(..., text=True)`` decodes it."""
    raw.seek(0)
    data = raw.read().decode("utf-8", errors="replace")
    return data.replace("\r\n", "\n").replace("\r", "\n")


class _Output:
    """What a command wrote to one file descriptor; ``text`` is set once it is done."""

    text = ""


@contextmanager
def captured() -> Iterator[tuple[_Output, _Output]]:
    """Capture file descriptors 1 and 2, and ``sys.stdout``/``sys.stderr`` written to them
    in order (UTF-8; stderr backslash-escapes what it cannot encode, as Python's does)."""
    out, err = _Output(), _Output()
    saved_stdout, saved_stderr = sys.stdout, sys.stderr
    with ExitStack() as stack:
        wrappers = []
        for fd, errors, output in ((1, "strict", out), (2, "backslashreplace", err)):
            raw = stack.enter_context(tempfile.TemporaryFile())
            getattr(sys, "stdout" if fd == 1 else "stderr").flush()
            saved = os.dup(fd)
            os.dup2(raw.fileno(), fd)
            stack.callback(_restore, fd, saved, raw, output)
            wrapper = io.TextIOWrapper(
                io.FileIO(fd, "w", closefd=False), encoding="utf-8", errors=errors,
                write_through=True,
            )  # fmt: skip
            stack.callback(wrapper.flush)
            wrappers.append(wrapper)
        sys.stdout, sys.stderr = wrappers
        try:
            yield out, err
        finally:
            sys.stdout, sys.stderr = saved_stdout, saved_stderr


def _restore(fd: int, saved: int, raw: IO[bytes], output: _Output) -> None:
    os.dup2(saved, fd)
    os.close(saved)
    output.text = _text(raw)
