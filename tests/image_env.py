"""The container image's Python environment, built without Docker as the Dockerfile builds it:
our wheel made from the build context ``.dockerignore`` leaves, installed into a fresh
environment with the entry point beside it. The dependencies (all manylinux wheels, nothing
compiled) come from the test interpreter's own site-packages instead of a second download."""

from __future__ import annotations

import fnmatch
import shutil
import subprocess
import sys
import sysconfig
from dataclasses import dataclass
from pathlib import Path

from conftest import REPO_ROOT

__all__ = ["ImageEnv", "build_image_env", "docker_context"]


def docker_context(dest: Path) -> None:
    """Copy what `docker build` would send: the repository's files minus .dockerignore."""
    patterns = [
        p.strip()
        for p in (REPO_ROOT / ".dockerignore").read_text().splitlines()
        if p.strip() and not p.startswith("#")
    ]
    tracked = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard"],
        cwd=REPO_ROOT, capture_output=True, text=True, check=True,
    ).stdout.splitlines()  # fmt: skip
    for rel in tracked:
        parts = Path(rel).parts
        prefixes = ["/".join(parts[: i + 1]) for i in range(len(parts))]
        if any(fnmatch.fnmatch(p, pat.removeprefix("**/")) for p in prefixes for pat in patterns):
            continue
        if not (REPO_ROOT / rel).exists():
            continue
        target = dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPO_ROOT / rel, target)


@dataclass(frozen=True)
class ImageEnv:
    """The installed environment: its interpreter and the image's entry point."""

    python: Path
    entrypoint: Path

    def argv(self, action: str = "") -> list[str]:
        """The container's command for ``action`` (its ``runs.args``; none at the root)."""
        return [str(self.python), str(self.entrypoint), *([action] if action else [])]


def build_image_env(tmp: Path) -> ImageEnv:
    """Build the wheel from the Docker build context and install it as the Dockerfile does
    (``pip install --no-index``), into a virtual environment under ``tmp``."""
    ctx = tmp / "ctx"
    docker_context(ctx)
    dist = tmp / "wheels"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
         "--disable-pip-version-check", "-w", str(dist), str(ctx)],
        capture_output=True, text=True, timeout=600, check=True,
    )  # fmt: skip
    venv = tmp / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--no-deps",
         "--no-index", "--disable-pip-version-check", "--find-links", str(dist),
         "wheel-size-action"],
        capture_output=True, text=True, timeout=600, check=True,
    )  # fmt: skip
    purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip
    # The dependencies: the test interpreter's site-packages, after the environment's own
    # (so `wheel_size` is the installed wheel, never the checkout).
    (Path(purelib) / "zz_image_dependencies.pth").write_text(sysconfig.get_paths()["purelib"])
    # The Dockerfile's next step: the templates compiled into the installed package.
    subprocess.run([str(python), "-m", "wheel_size.render.bytecode"], check=True, timeout=120)
    entrypoint = tmp / "opt" / "entrypoint"
    entrypoint.parent.mkdir(parents=True)
    shutil.copy2(ctx / "entrypoint", entrypoint)
    return ImageEnv(python, entrypoint)
