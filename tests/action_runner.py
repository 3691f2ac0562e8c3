"""Running the container Action the way the runner runs it: every input (defaults from
action.yml included) as ``INPUT_<ID upper-cased>`` with hyphens kept, the GITHUB_* variables
and file-command paths, a workspace and a home of its own, against the fake GitHub."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

import yaml

from conftest import REPO_ROOT, SRC
from fakegithub import FakeGitHub

__all__ = [
    "ENTRYPOINT",
    "parse_outputs",
    "read_outputs",
    "run_action",
    "run_entrypoint",
    "runner_env",
]

ENTRYPOINT = REPO_ROOT / "entrypoint"


def parse_outputs(text: str) -> dict[str, str]:
    """The ``name<<DELIMITER`` blocks the Action appends to GITHUB_OUTPUT."""
    out: dict[str, str] = {}
    lines = iter(text.splitlines())
    for line in lines:
        name, _, delimiter = line.partition("<<")
        value = []
        for body in lines:
            if body == delimiter:
                break
            value.append(body)
        out[name] = "\n".join(value)
    return out


def read_outputs(path: Path) -> dict[str, str]:
    return parse_outputs(path.read_text())


def runner_env(
    fake: FakeGitHub,
    tmp: Path,
    inputs: Mapping[str, str],
    *,
    repository: str = "pytorch/pytorch",
    extra: Mapping[str, str] | None = None,
    action: str = "",
) -> dict[str, str]:
    """The environment of the container of ``action`` (``check``, ``split``, ``audit``; the
    root action by default); ``extra`` adds or overrides variables."""
    metadata = yaml.safe_load((REPO_ROOT / action / "action.yml").read_text())
    values = {k: str(v.get("default", "")) for k, v in metadata["inputs"].items()}
    # an expression the runner evaluates (github.event.pull_request.number on a push): empty
    values = {k: "" if v.startswith("${{") else v for k, v in values.items()}
    values.update({"github-token": fake.token, "repository": repository}, **inputs)
    for name in ("workspace", "home"):
        (tmp / name).mkdir(exist_ok=True)
    env = {
        # the entrypoint's `#!/usr/bin/env python3` must find this interpreter (a venv's too)
        "PATH": os.pathsep.join([str(Path(sys.executable).parent), os.environ["PATH"]]),
        "PYTHONPATH": str(SRC),
        "HOME": str(tmp / "home"),
        "CI": "true",
        "GITHUB_ACTIONS": "true",
        "GITHUB_API_URL": fake.url,
        "GITHUB_SERVER_URL": "https://github.com",
        "GITHUB_REPOSITORY": repository,
        "GITHUB_WORKSPACE": str(tmp / "workspace"),
        "GITHUB_OUTPUT": str(tmp / "output"),
        "GITHUB_STEP_SUMMARY": str(tmp / "summary"),
        "RUNNER_TEMP": str(tmp),
        **(extra or {}),
    }
    env.update({f"INPUT_{k.replace(' ', '_').upper()}": v for k, v in values.items()})
    return env


def run_entrypoint(env: Mapping[str, str], action: str = "") -> subprocess.CompletedProcess[str]:
    """Run ``entrypoint`` in the workspace, as the container's command, with the action's
    ``runs.args`` (its name; none for the root action)."""
    assert os.access(ENTRYPOINT, os.X_OK), "entrypoint must be executable"
    return subprocess.run(
        [str(ENTRYPOINT), *([action] if action else [])], env=dict(env),
        cwd=env["GITHUB_WORKSPACE"], capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip


def run_action(env: Mapping[str, str], action: str = "") -> subprocess.CompletedProcess[str]:
    """What :func:`run_entrypoint` runs, in this process: ``wheel_size.action.main.main``
    with ``env`` as the whole environment, in the workspace, output captured at the file
    descriptors (see :mod:`cli_runner`). The process is left as it was, the ``ssl`` module
    too (the action verifies HTTPS against the system trust store: it patches ``ssl``).

    The entrypoint script itself (executable, its interpreter line, the container's
    argument) and crash isolation are proved by the tests that run it as a process."""
    from cli_runner import captured, process_state
    from wheel_size import trust
    from wheel_size.action.main import main
    from wheel_size.history.recordfile import drain_skipped

    patched = trust._TRUSTSTORE_INJECTED
    drain_skipped()
    argv = [action] if action else []
    try:
        with (
            process_state(env, env["GITHUB_WORKSPACE"], replace_env=True),
            captured() as (out, err),
        ):
            status = main(argv=argv)
    finally:
        if trust._TRUSTSTORE_INJECTED and not patched:
            import truststore

            truststore.extract_from_ssl()
            trust._TRUSTSTORE_INJECTED = False
    return subprocess.CompletedProcess([str(ENTRYPOINT), *argv], status, out.text, err.text)
