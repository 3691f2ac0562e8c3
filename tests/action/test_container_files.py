"""The container action's files, checked without a Docker daemon: the Dockerfile follows the
runner's rules, and the build context .dockerignore leaves still builds a complete wheel."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
import yaml

from conftest import REPO_ROOT
from image_env import docker_context

ACTIONS = ("action.yml", "check/action.yml", "split/action.yml", "audit/action.yml")
IMAGE = "docker://ghcr.io/owner/wheel-size-action:1.2.0@sha256:" + "ab" * 32


def dockerfile() -> list[str]:
    lines = (REPO_ROOT / "Dockerfile").read_text().splitlines()
    return [ln.strip() for ln in lines if ln.strip() and not ln.lstrip().startswith("#")]


def test_dockerfile_follows_container_action_rules() -> None:
    lines = dockerfile()
    stages = [ln.split()[1] for ln in lines if ln.startswith("FROM ")]
    assert stages == ["${PYTHON_IMAGE}", "${PYTHON_IMAGE}"]  # build, then a runtime stage
    (base,) = [ln.split("=", 1)[1] for ln in lines if ln.startswith("ARG PYTHON_IMAGE=")]
    # pinned by digest: every build starts from the same bytes
    assert re.fullmatch(r"python:3\.\d+-slim@sha256:[0-9a-f]{64}", base), base
    assert lines.index(f"ARG PYTHON_IMAGE={base}") < lines.index("FROM ${PYTHON_IMAGE} AS build")
    assert any("apt-get install" in ln for ln in lines)
    assert "git" in (REPO_ROOT / "Dockerfile").read_text().split("apt-get install", 1)[1]
    assert not any(ln.startswith(("USER", "WORKDIR")) for ln in lines)  # runner rules
    entry = [ln for ln in lines if ln.startswith("ENTRYPOINT")]
    assert len(entry) == 1
    argv = json.loads(entry[0].removeprefix("ENTRYPOINT"))  # exec form
    assert argv == ["/opt/wheel-size-action/entrypoint"]
    assert os.access(REPO_ROOT / "entrypoint", os.X_OK)
    action = yaml.safe_load((REPO_ROOT / "action.yml").read_text())
    assert action["runs"] == {"using": "docker", "image": "Dockerfile"}
    assert all(k == k.lower() and "_" not in k for k in action["inputs"])  # kebab-case
    for name in ("check", "split", "audit"):  # one image; the runner joins image to the
        # action's directory and builds with the Dockerfile's directory as the context
        sub = yaml.safe_load((REPO_ROOT / name / "action.yml").read_text())
        assert sub["runs"] == {"using": "docker", "image": "../Dockerfile", "args": [name]}
        assert all(k == k.lower() and "_" not in k for k in sub["inputs"])


def test_build_context_makes_a_complete_wheel(tmp_path: Path) -> None:
    pytest.importorskip("hatchling", reason="hatchling not installed: cannot build the wheel")
    ctx = tmp_path / "ctx"
    docker_context(ctx)
    assert (ctx / "entrypoint").is_file() and not (ctx / "tests").exists()
    out = tmp_path / "dist"
    res = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
         "-w", str(out), str(ctx)],
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert res.returncode == 0, res.stderr
    (wheel,) = out.glob("*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    for needed in (
        "wheel_size/action/main.py",
        "wheel_size/cli/track.py",
        "wheel_size/templates/size-report.md.j2",
        "wheel_size/templates/action-summary-truncated.md.j2",
        "wheel_size/templates/data-branch-readme.md.j2",
    ):
        assert needed in names


def test_release_stamp_points_action_at_image_and_workflow_at_its_tag(tmp_path: Path) -> None:
    (tmp_path / ".github" / "workflows").mkdir(parents=True)
    for name in ACTIONS:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(REPO_ROOT / name, tmp_path / name)
    workflow = tmp_path / ".github" / "workflows" / "wheel-size.yml"
    shutil.copy(REPO_ROOT / ".github" / "workflows" / "wheel-size.yml", workflow)
    done = subprocess.run(
        [
            sys.executable,
            str(REPO_ROOT / "scripts" / "stamp_release.py"),
            "--image",
            IMAGE,
            "--self",
            "owner/wheel-size-action@v1.2.0",
            "--root",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    for name in ACTIONS:  # all four actions pull the one image, by digest
        action = yaml.safe_load((tmp_path / name).read_text())
        assert action["runs"]["image"] == IMAGE, name
    jobs = yaml.safe_load(workflow.read_text())["jobs"]
    installs = [
        step
        for job in jobs.values()
        for step in job.get("steps", [])
        if step.get("name") == "Install wheel-size"
    ]
    assert installs and all(s["env"]["SELF"] == "owner/wheel-size-action@v1.2.0" for s in installs)


def test_reusable_workflow_has_no_placeholder_tool_source() -> None:
    text = (REPO_ROOT / ".github" / "workflows" / "wheel-size.yml").read_text()
    assert "org/wheel-size-action@" not in text
    for example in (REPO_ROOT / "docs" / "examples").glob("*.yml"):
        assert "tool-requirement" not in example.read_text(), example.name


def test_no_layer_carries_what_a_later_layer_removes() -> None:
    """Issue 32: the wheels copied into the runtime stage and removed by a later RUN stayed
    in the image (a layer is never shrunk by the next one): 17.6 MB of dead layer."""
    lines = dockerfile()
    runtime = lines[max(i for i, ln in enumerate(lines) if ln.startswith("FROM ")) :]
    copied = [ln.split()[-1] for ln in runtime if ln.startswith("COPY ")]
    removals = " ".join(ln for ln in runtime if ln.startswith(("RUN", "&&")) or "rm -" in ln)
    for dest in copied:
        assert f"rm -rf {dest}" not in removals and f"rm -r {dest}" not in removals, dest
