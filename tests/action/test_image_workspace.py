"""Each of the four actions, run from the image's Python environment (built as the Dockerfile
builds it) the way github.com's runner starts a container action: as root, in a workspace
owned by the runner's user (uid 1001), with globs written relative or absolute
(``${{ github.workspace }}/dist/*.whl`` arrives as the container's workspace path).

After every run the whole workspace must still belong to its owner, so that a later
``rm -rf`` or ``git clean`` as that user works, and every path output must be relative to
the workspace, so a later step on the host can open it.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Mapping
from pathlib import Path

import pytest

from action_runner import read_outputs, runner_env
from check_world import NIGHTLY, World, big_pr_wheel
from conftest import run_cli
from fakegithub import FakeGitHub
from fatwheel import build_fat_wheel
from image_env import ImageEnv, build_image_env
from nightly_world import WORKFLOW_ID, add_month, add_world
from wheel_factory import make_1747_matrix

OWNER = 1001  # the runner user's uid and gid on github.com

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="the runner starts containers as root")


@pytest.fixture(scope="module")
def image(tmp_path_factory: pytest.TempPathFactory) -> ImageEnv:
    pytest.importorskip("hatchling", reason="hatchling not installed: cannot build the wheel")
    return build_image_env(tmp_path_factory.mktemp("image"))


def _workspace(tmp: Path) -> Path:
    workspace = tmp / "workspace"
    workspace.mkdir(exist_ok=True)
    _give(workspace)
    return workspace


def _give(path: Path) -> None:
    """Make ``path`` the runner user's, as files a checkout or download step wrote."""
    os.chown(path, OWNER, OWNER)
    for top, dirs, files in os.walk(path):
        for name in (*dirs, *files):
            os.lchown(Path(top) / name, OWNER, OWNER)


def _not_owned(workspace: Path) -> list[str]:
    """Everything in the workspace its owner could not remove or rewrite."""
    wrong = []
    for top, dirs, files in os.walk(workspace):
        for name in (*dirs, *files):
            info = (Path(top) / name).lstat()
            if (info.st_uid, info.st_gid) != (OWNER, OWNER):
                wrong.append(str((Path(top) / name).relative_to(workspace)))
    return wrong


def _snapshot(workspace: Path) -> dict[str, tuple[int, int, int]]:
    return {
        str(p.relative_to(workspace)): (p.lstat().st_uid, p.lstat().st_size, p.lstat().st_mtime_ns)
        for p in workspace.rglob("*")
    }


def _run(
    image: ImageEnv, env: Mapping[str, str], action: str = ""
) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in env.items() if k != "PYTHONPATH"}  # the image has no checkout
    cwd = Path(env["RUNNER_TEMP"]) / "workspace"  # where the runner starts the container
    return subprocess.run(
        image.argv(action), env=clean, cwd=cwd, capture_output=True, text=True, timeout=600,
        check=False,
    )  # fmt: skip


def _env(
    fake: FakeGitHub, tmp: Path, inputs: dict[str, str], action: str, **kw: object
) -> dict[str, str]:
    env = runner_env(fake, tmp, inputs, action=action, **kw)  # type: ignore[arg-type]
    (tmp / "output").write_text("")
    return env


def test_the_image_runs_the_installed_wheel(image: ImageEnv) -> None:
    done = subprocess.run(
        [str(image.python), "-c", "import wheel_size; print(wheel_size.__file__)"],
        capture_output=True, text=True, check=True, env={"PATH": os.environ["PATH"]},
    )  # fmt: skip
    assert done.stdout.startswith(str(image.python.parent.parent))


def test_split_with_an_absolute_glob(
    image: ImageEnv, fake_github: FakeGitHub, tmp_path: Path
) -> None:
    workspace = tmp_path / "workspace"
    wheel = build_fat_wheel(workspace / "dist")
    _workspace(tmp_path)
    _give(workspace)
    inputs = {"split-input": f"{workspace}/dist/*.whl", "split-output-dir": "out/split"}
    done = _run(image, _env(fake_github, tmp_path, inputs, "split", repository="r/o"), "split")
    assert done.returncode == 0, done.stdout + done.stderr
    outputs = read_outputs(tmp_path / "output")
    written = json.loads(outputs["split-wheels"])
    assert written and all(not Path(p).is_absolute() for p in written)
    assert all((workspace / p).is_file() for p in written)
    assert outputs["split-report-path"] == f"out/split/{wheel.stem}.split.md"
    assert outputs["split-report-json-path"] == f"out/split/{wheel.stem}.split.json"
    assert _not_owned(workspace) == []


def test_audit_with_absolute_and_relative_globs(
    image: ImageEnv, fake_github: FakeGitHub, tmp_path: Path
) -> None:
    workspace = _workspace(tmp_path)
    make_1747_matrix(workspace / "artifacts")
    _give(workspace)
    inputs = {
        "audit-input": f"{workspace}/artifacts/linux-* artifacts/windows artifacts/macos-*",
        "report-path": "reports/audit.md",
    }
    done = _run(image, _env(fake_github, tmp_path, inputs, "audit"), "audit")
    assert done.returncode == 0, done.stdout + done.stderr
    outputs = read_outputs(tmp_path / "output")
    assert outputs["audit-report-path"] == "reports/audit.md"
    assert outputs["audit-report-json-path"] == "reports/audit.json"
    report = json.loads((workspace / "reports" / "audit.json").read_text())
    assert len(report["verdicts"]) == 7
    assert all(v["wheel"].startswith("artifacts/") for v in report["verdicts"])
    assert _not_owned(workspace) == []


def test_check_with_an_absolute_glob(
    image: ImageEnv, fake_github: FakeGitHub, tmp_path: Path
) -> None:
    world = World(fake_github, tmp_path / "world")
    workspace = _workspace(tmp_path)
    big_pr_wheel(workspace / "dist")
    _give(workspace)
    inputs = {
        "check-wheels": f"{workspace}/dist/pr/{NIGHTLY}/*.whl",
        "history-dir": str(world.history),
        "check-report-path": f"{workspace}/reports/check.md",
        "pr-number": "",
    }
    done = _run(image, _env(fake_github, tmp_path, inputs, "check"), "check")
    assert done.returncode in (0, 1), done.stdout + done.stderr
    assert "::error title=wheel-size::" not in done.stdout
    outputs = read_outputs(tmp_path / "output")
    assert outputs["check-report-path"] == "reports/check.md"
    assert outputs["check-json-path"] == "reports/check.json"
    assert (workspace / "reports" / "check.md").is_file()
    assert _not_owned(workspace) == []


def test_nightly_with_its_data_remote_in_the_workspace(
    image: ImageEnv, fake_github: FakeGitHub, tmp_path: Path
) -> None:
    """A data remote the runner's user owns, inside the workspace: git refuses it as root
    ("dubious ownership") unless the Action marks it safe for its own git processes."""
    add_month(add_world(fake_github), 2025, 10)
    workspace = _workspace(tmp_path)
    subprocess.run(["git", "init", "-q", "--bare", str(workspace / "sizes.git")], check=True)
    _give(workspace)
    inputs = {
        "workflow": str(WORKFLOW_ID),
        "months": "October 2025",
        "data-remote": "sizes.git",
        "report-path": "reports/nightly.md",
    }
    done = _run(image, _env(fake_github, tmp_path, inputs, ""))
    assert done.returncode == 0, done.stdout + done.stderr
    outputs = read_outputs(tmp_path / "output")
    assert outputs["report-path"] == "reports/nightly.md"
    assert outputs["commit"]
    assert _not_owned(workspace) == []
    assert not (tmp_path / "home" / ".gitconfig").exists()  # the user's config is untouched


@pytest.mark.parametrize(
    ("action", "inputs", "extra", "message"),
    [
        (
            "audit",
            {"audit-input": "wheels/*.whl"},
            {},
            "input audit-input: wheels/*.whl matches no file in the workspace",
        ),
        (
            "audit",
            {"audit-input": "../outside/*.whl"},
            {},
            "input audit-input: ../outside/*.whl is outside the workspace",
        ),
        (
            "check",
            {"check-wheels": "{tmp}/outside/*.whl"},
            {},
            "input check-wheels: {tmp}/outside/*.whl is outside the workspace",
        ),
        (
            "split",
            {"split-input": "link/*.whl"},
            {},
            "input split-input: link/*.whl: link/a.whl leads outside the workspace",
        ),
        (
            "split",
            {"split-input": "dist/a.whl", "audit-input": "dist"},
            {},
            "input audit-input is not an input of the split action; it belongs to the audit "
            "action: move it to a step with uses: OWNER/wheel-size-action/audit@v1",
        ),
        (
            "",
            {"workflow": "1", "check-wheels": "dist"},
            {"GITHUB_ACTION_REPOSITORY": "me/wheel-size-action", "GITHUB_ACTION_REF": "v1.4.0"},
            "input check-wheels is not an input of the nightly action; it belongs to the "
            "check action: move it to a step with uses: me/wheel-size-action/check@v1.4.0",
        ),
        (
            "check",
            {"check-wheels": "dist/a.whl"},
            {"REQUESTS_CA_BUNDLE": "{tmp}/no-such-ca.pem"},
            "REQUESTS_CA_BUNDLE={tmp}/no-such-ca.pem: no such CA bundle file",
        ),
        (
            "audit",
            {"audit-input": "dist/a.whl", "split-output-dir": "x"},
            {"GITHUB_WORKSPACE": "{tmp}/gone"},
            "input split-output-dir is not an input of the audit action",
        ),
        (
            "audit",
            {"audit-input": "dist/a.whl"},
            {"GITHUB_WORKSPACE": "{tmp}/gone"},
            "workspace {tmp}/gone: cannot read it",
        ),
    ],
)
def test_bad_input_is_one_line_exit_2_and_nothing_written(
    image: ImageEnv,
    fake_github: FakeGitHub,
    tmp_path: Path,
    action: str,
    inputs: dict[str, str],
    extra: dict[str, str],
    message: str,
) -> None:
    workspace = _workspace(tmp_path)
    (workspace / "dist").mkdir()
    (workspace / "dist" / "a.whl").write_bytes(b"PK")
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "a.whl").write_bytes(b"PK")
    (workspace / "link").symlink_to(tmp_path / "outside")
    _give(workspace)
    before = _snapshot(workspace)
    tmp = str(tmp_path)
    inputs = {k: v.replace("{tmp}", tmp) for k, v in inputs.items()}
    extra = {k: v.replace("{tmp}", tmp) for k, v in extra.items()}
    env = _env(fake_github, tmp_path, inputs, action, extra=extra)
    done = _run(image, env, action)
    assert done.returncode == 2, done.stdout + done.stderr
    errors = [ln for ln in done.stdout.splitlines() if ln.startswith("::error")]
    assert len(errors) == 1, done.stdout
    assert message.replace("{tmp}", tmp) in errors[0]
    assert "Traceback" not in done.stderr
    assert _snapshot(workspace) == before


def test_a_file_url_data_remote_is_marked_safe_too(
    image: ImageEnv, fake_github: FakeGitHub, tmp_path: Path
) -> None:
    """The data remote as a path or a file:// URL is one repository the Action opens."""
    add_month(add_world(fake_github), 2025, 10)
    workspace = _workspace(tmp_path)
    remote = tmp_path / "elsewhere" / "sizes.git"
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
    _give(remote.parent)
    inputs = {
        "workflow": str(WORKFLOW_ID),
        "months": "October 2025",
        "data-remote": f"file://{remote}",
    }
    done = _run(image, _env(fake_github, tmp_path, inputs, ""))
    assert done.returncode == 0, done.stdout + done.stderr
    assert _not_owned(workspace) == []


def test_git_refusing_a_repository_says_why(fake_github: FakeGitHub, tmp_path: Path) -> None:
    """Outside the Action (``wheel-size track`` as root), git's own reason is the error, not
    the "Could not read from remote repository" that follows it."""
    add_month(add_world(fake_github), 2025, 10)
    remote = tmp_path / "elsewhere" / "sizes.git"
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
    _give(remote.parent)
    (tmp_path / "home").mkdir()
    done = run_cli(
        ["track", "--repo", "pytorch/pytorch", "--workflow", str(WORKFLOW_ID), "--month",
         "October 2025", "--data-remote", str(remote)],
        env={**fake_github.env(), "HOME": str(tmp_path / "home")}, cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 2, done.stdout + done.stderr
    assert f"detected dubious ownership in repository at '{remote}'" in done.stderr
    assert "Could not read from remote repository" not in done.stderr
