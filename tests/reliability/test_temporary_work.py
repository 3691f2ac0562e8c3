"""``diff`` and ``audit`` work under ``$TMPDIR`` (issue 17, point 6): a temporary directory
that fills up is the documented one line, SIGTERM removes their temporary directories, and
a hostile WHEEL ``Tag`` is one line naming the wheel and the tag, not an internal error."""

from __future__ import annotations

import errno
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from action_runner import run_action, runner_env
from cli_runner import run_main
from conftest import checkout_env, unmeasured
from fakegithub import FakeGitHub
from wheel_factory import make_wheel

ELF_HEAD = b"\x7fELF\x02\x01\x01" + bytes(57)
# ``python -c`` bootstrap: no file past 64 bytes (EFBIG; tempfile's probe still fits).
LIMITED = (
    "import resource, runpy; resource.setrlimit(resource.RLIMIT_FSIZE, (64, 64)); "
    "runpy.run_module('wheel_size', run_name='__main__', alter_sys=True)"
)


def elf_wheel(directory: Path, version: str, libraries: int, size: int) -> Path:
    """A wheel of ``libraries`` ELF files of ``size`` bytes, different in each version."""
    directory.mkdir(parents=True, exist_ok=True)
    files = {
        f"pkg/lib{i}.so": ELF_HEAD + version.encode() * (size // len(version))
        for i in range(libraries)
    }
    return make_wheel(directory, "pkg", version, "cp312-cp312-manylinux_2_28_x86_64", files)


# -- a full temporary directory ------------------------------------------------------------


@pytest.fixture
def small_tmpfs(tmp_path: Path) -> Iterator[Path]:
    """A 512 KiB tmpfs with 32 KiB free: tempfile's probe succeeds, a 1 MiB copy does not."""
    where = tmp_path / "tmpfs"
    if os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("tmpfs needs root and mount(8); the file-size-limit case covers this path")
    where.mkdir()
    proc = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=512k,mode=0755", "tmpfs", str(where)],
        capture_output=True,
        text=True,
        check=False,
    )
    if proc.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here ({proc.stderr.strip()})")
    try:
        (where / "filler").write_bytes(bytes(480 << 10))
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False)


def _one_error(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr and "internal error" not in result.stderr
    errors = [ln for ln in result.stderr.splitlines() if ln.startswith("wheel-size: error:")]
    assert len(errors) == 1, result.stderr
    return errors[0]


@pytest.mark.parametrize("command", ["diff", "audit"])
def test_full_tmpdir_is_one_line(command: str, tmp_path: Path, small_tmpfs: Path) -> None:
    old = elf_wheel(tmp_path / "old", "1.0", 1, 1 << 20)
    new = elf_wheel(tmp_path / "new", "2.0", 1, 1 << 20)
    args = [command, str(old), str(new)] if command == "diff" else [command, str(new)]
    line = _one_error(run_main(args, env={"TMPDIR": str(small_tmpfs)}))
    assert line == (
        f"wheel-size: error: {small_tmpfs} (the temporary directory, $TMPDIR): cannot write: "
        f"{os.strerror(errno.ENOSPC)}"
    )
    assert sorted(p.name for p in small_tmpfs.iterdir()) == ["filler"]  # nothing left


def test_full_tmpdir_in_the_audit_action_is_one_line(
    fake_github: FakeGitHub, tmp_path: Path, small_tmpfs: Path
) -> None:
    """The audit action works under $TMPDIR as the CLI does: the same one line, as an
    ::error annotation, exit 2, no report written."""
    env = runner_env(fake_github, tmp_path, {"audit-input": "dist/*.whl"}, action="audit")
    elf_wheel(tmp_path / "workspace" / "dist", "2.0", 1, 1 << 20)
    env["TMPDIR"] = str(small_tmpfs)
    done = run_action(env, "audit")
    assert done.returncode == 2, done.stdout + done.stderr
    assert "internal error" not in done.stdout + done.stderr
    errors = [ln for ln in done.stdout.splitlines() if ln.startswith("::error")]
    assert len(errors) == 1 and errors[0].endswith(
        f"{small_tmpfs} (the temporary directory, $TMPDIR): cannot write: "
        f"{os.strerror(errno.ENOSPC)}"
    ), done.stdout
    assert not (tmp_path / "workspace" / "wheel-size-audit.md").exists()


@pytest.mark.parametrize("command", ["diff", "audit"])
def test_file_size_limit_in_tmpdir_is_one_line(command: str, tmp_path: Path) -> None:
    old = elf_wheel(tmp_path / "old", "1.0", 1, 4096)
    new = elf_wheel(tmp_path / "new", "2.0", 1, 4096)
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    args = [command, str(old), str(new)] if command == "diff" else [command, str(new)]
    result = subprocess.run(
        [sys.executable, "-c", LIMITED, *args],
        env=unmeasured(checkout_env({"TMPDIR": str(tmp)})),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert _one_error(result).endswith(f"cannot write: {os.strerror(errno.EFBIG)}")
    assert list(tmp.iterdir()) == []


# -- SIGTERM ---------------------------------------------------------------------------------


def _wait_for(predicate: object, proc: subprocess.Popen[str], what: str) -> None:
    """Wait until ``predicate()`` holds while ``proc`` runs (an event, not a duration)."""
    assert callable(predicate)
    while not predicate():
        if proc.poll() is not None:
            pytest.fail(
                f"the command ended before {what}: {proc.stderr.read() if proc.stderr else ''}"
            )
        time.sleep(0.05)


@pytest.mark.parametrize("command", ["diff", "audit"])
def test_sigterm_removes_the_temporary_directories(command: str, tmp_path: Path) -> None:
    # thousands of different libraries: each is copied to $TMPDIR and parsed, for seconds
    old = elf_wheel(tmp_path / "old", "1.0", 3000, 256)
    new = elf_wheel(tmp_path / "new", "2.0", 3000, 256)
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    args = [command, str(old), str(new)] if command == "diff" else [command, str(new)]
    proc = subprocess.Popen(
        [sys.executable, "-m", "wheel_size", *args],
        env=checkout_env({"TMPDIR": str(tmp)}),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        # the member copies exist: the command is in the middle of its work
        _wait_for(lambda: any(p.is_file() for p in tmp.rglob("*")), proc, "copying a member")
        proc.send_signal(signal.SIGTERM)
        _, stderr = proc.communicate(timeout=300)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 128 + signal.SIGTERM, stderr
    assert stderr.strip().splitlines()[-1] == "wheel-size: terminated"
    assert "Traceback" not in stderr
    assert list(tmp.iterdir()) == []


# -- a hostile WHEEL Tag ---------------------------------------------------------------------


@pytest.mark.parametrize("tag", ["py3-none", "py3-none-any-extra", "--", "x" * 5000])
def test_audit_names_a_hostile_wheel_tag(tag: str, tmp_path: Path) -> None:
    wheel = make_wheel(tmp_path, "pkg", "1.0", "py3-none-any", {"pkg/__init__.py": b""})
    import zipfile

    with zipfile.ZipFile(wheel) as archive:
        items = [(i, archive.read(i)) for i in archive.infolist()]
    hostile = tmp_path / "hostile" / wheel.name
    hostile.parent.mkdir()
    with zipfile.ZipFile(hostile, "w") as archive:
        for info, data in items:
            if info.filename.endswith("/WHEEL"):
                data = data.replace(b"Tag: py3-none-any", f"Tag: {tag}".encode())
            archive.writestr(info, data)
    line = _one_error(run_main(["audit", str(hostile)]))
    assert f"{hostile}: pkg-1.0.dist-info/WHEEL: Tag " in line
    assert repr(tag[:20])[:-1] in line and "is not a wheel tag" in line
    assert len(line) < 400
