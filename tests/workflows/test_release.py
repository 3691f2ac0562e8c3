"""The release workflow ships an image every repository can pull: multi-arch, from a base
pinned by digest, never overwriting a released version, and checked by an anonymous pull
before any tag moves and again as its last step."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
from workflow_files import REPO_ROOT, load_yaml

RELEASE = REPO_ROOT / ".github" / "workflows" / "release.yml"
PULL = REPO_ROOT / "scripts" / "anonymous_pull.sh"


def _steps() -> list[dict[str, Any]]:
    (job,) = load_yaml(RELEASE)["jobs"].values()
    steps: list[dict[str, Any]] = job["steps"]
    return steps


def _index(steps: list[dict[str, Any]], predicate: Any) -> int:
    (found,) = [i for i, step in enumerate(steps) if predicate(step)]
    return found


def test_the_image_is_multi_arch() -> None:
    steps = _steps()
    qemu = _index(steps, lambda s: str(s.get("uses", "")).startswith("docker/setup-qemu-action"))
    build = _index(steps, lambda s: str(s.get("uses", "")).startswith("docker/build-push-action"))
    assert qemu < build
    platforms = steps[build]["with"]["platforms"].split(",")
    assert sorted(platforms) == ["linux/amd64", "linux/arm64"]
    assert steps[build]["with"]["push"] is True


def test_a_released_version_is_never_rebuilt() -> None:
    steps = _steps()
    refuse = _index(steps, lambda s: s.get("name") == "Refuse to overwrite a released version")
    build = _index(steps, lambda s: str(s.get("uses", "")).startswith("docker/build-push-action"))
    assert refuse < build
    assert 'git ls-remote --exit-code --tags origin "refs/tags/v$VERSION"' in steps[refuse]["run"]
    tag = _index(steps, lambda s: s.get("name") == "Tag the release commit")
    assert 'git tag "v$VERSION"' in steps[tag]["run"]
    assert 'git tag -f "v$VERSION"' not in steps[tag]["run"]  # only v1 and v1.2 move
    assert '--image "docker://$NAME:$VERSION@$DIGEST"' in steps[tag]["run"]  # by digest


def test_anonymous_pulls_guard_the_tags_and_end_the_release() -> None:
    steps = _steps()
    logout = _index(steps, lambda s: s.get("run") == "docker logout ghcr.io")
    pulls = [i for i, s in enumerate(steps) if "scripts/anonymous_pull.sh" in str(s.get("run"))]
    tag = _index(steps, lambda s: s.get("name") == "Tag the release commit")
    assert len(pulls) == 2
    assert logout < pulls[0] < tag < pulls[1] == len(steps) - 1


def _fake_docker(tmp: Path, *, private: bool) -> dict[str, str]:
    """A `docker` that answers pulls as GHCR does for a private or a public package, and
    refuses to run with any credentials in its configuration."""
    bin_dir = tmp / "bin"
    bin_dir.mkdir()
    docker = bin_dir / "docker"
    refusal = 'echo "Error response from daemon: unauthorized" >&2; exit 1'
    answer = refusal if private else "exit 0"
    docker.write_text(
        "#!/usr/bin/env bash\n"
        'if [[ -n "$(ls -A "$DOCKER_CONFIG")" ]]; then echo "credentials present" >&2; exit 3; fi\n'
        'echo "$*" >> "$CALLS"\n'
        'case "$1" in\n'
        f"  pull) {answer};;\n"
        "  image) echo 104857600;;\n"
        "esac\n"
    )
    docker.chmod(0o755)
    return {
        "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
        "CALLS": str(tmp / "calls"),
        "GITHUB_REPOSITORY": "me/wheel-size-action",
        "GITHUB_SERVER_URL": "https://github.com",
        "GITHUB_STEP_SUMMARY": str(tmp / "summary"),
    }


IMAGE = "ghcr.io/me/wheel-size-action:1.2.0@sha256:" + "ab" * 32


@pytest.mark.parametrize("private", [True, False])
def test_anonymous_pull(tmp_path: Path, private: bool) -> None:
    env = _fake_docker(tmp_path, private=private)
    done = subprocess.run(
        ["bash", str(PULL), IMAGE, "wheel-size-action"], env=env, capture_output=True,
        text=True, timeout=60, check=False,
    )  # fmt: skip
    calls = (tmp_path / "calls").read_text().splitlines()
    if private:
        assert done.returncode == 1
        (line,) = done.stdout.splitlines()
        assert line.startswith(f"::error title=release::{IMAGE} cannot be pulled without")
        assert "make the package public" in line
        assert "https://github.com/me/wheel-size-action/pkgs/container/wheel-size-action" in line
        assert calls == [f"pull -q --platform linux/amd64 {IMAGE}"]
    else:
        assert done.returncode == 0, done.stdout + done.stderr
        pulled = [c for c in calls if c.startswith("pull")]
        assert pulled == [f"pull -q --platform {p} {IMAGE}" for p in ("linux/amd64", "linux/arm64")]
        assert "100 MB, pulled anonymously" in (tmp_path / "summary").read_text()


def test_release_tags_never_move_backwards() -> None:
    """Issue 32: a backport (1.1.5 after 1.2.0) moved v1 back to 1.1.5."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "release_tags", REPO_ROOT / "scripts" / "release_tags.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    released = ["v1.0.0", "v1.1.4", "v1.2.0", "v1.2", "v1", "v2.0.0"]
    assert module.moves("1.1.5", released) == {"minor": True, "major": False}
    assert module.moves("1.2.1", released) == {"minor": True, "major": True}
    assert module.moves("1.0.3", released) == {"minor": True, "major": False}
    assert module.moves("2.1.0", released) == {"minor": True, "major": True}
    assert module.moves("3.0.0", []) == {"minor": True, "major": True}
    steps = _steps()
    tag = _index(steps, lambda s: s.get("name") == "Tag the release commit")
    run = steps[tag]["run"]
    assert 'if [ "$MOVE_MAJOR" = true ]; then git tag -f "$major"' in run
    assert 'git push -f origin "$minor" "$major"' not in run
    image = _index(steps, lambda s: s.get("name") == "Image name")
    assert "MOVE_MAJOR" in steps[image]["run"]  # the image's :1 follows the same rule


def test_third_party_actions_are_pinned_by_sha() -> None:
    """Issue 32: a job with contents and packages write ran actions pinned by movable tags."""
    import re

    for step in _steps():
        uses = str(step.get("uses", ""))
        if uses and not uses.startswith("./"):
            assert re.fullmatch(r"[\w.-]+/[\w.-]+@[0-9a-f]{40}", uses), uses
    text = RELEASE.read_text()
    for line in text.splitlines():
        if "uses:" in line and "@" in line:
            assert re.search(r"@[0-9a-f]{40}  # v\d+\.\d+\.\d+$", line), line
