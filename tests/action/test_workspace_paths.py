"""Paths a runner can use: inputs relative or absolute inside the workspace, outputs relative
to it. (Absolute globs used to crash with NotImplementedError: pathlib's glob refuses them.)"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from wheel_size.action.workspace import Workspace
from wheel_size.errors import InputError


@pytest.fixture
def place(tmp_path: Path) -> Workspace:
    root = tmp_path / "ws"
    for name in ("dist/b.whl", "dist/a.whl", "dist/sub/c.whl", "notes.txt"):
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("")
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "x.whl").write_text("")
    (root / "link").symlink_to(tmp_path / "outside")
    return Workspace.at(root)


def test_relative_and_absolute_globs_match_the_same_files(place: Workspace) -> None:
    root = place.root
    expected = [root / "dist" / "a.whl", root / "dist" / "b.whl"]
    assert place.files("in", ["dist/*.whl"]) == expected
    assert place.files("in", [f"{root}/dist/*.whl"]) == expected
    assert place.files("in", [f"{root}/dist/**/*.whl", "notes.txt", "dist/a.whl"]) == [
        *expected,
        root / "dist" / "sub" / "c.whl",
        root / "notes.txt",
    ]
    assert place.files("in", ["dist/sub/../a.whl"]) == [root / "dist" / "a.whl"]


@pytest.mark.parametrize(
    ("item", "problem"),
    [
        ("wheels/*.whl", "input in: wheels/*.whl matches no file in the workspace"),
        ("gone.whl", "input in: gone.whl: no such file or directory in the workspace"),
        ("../outside/*.whl", "input in: ../outside/*.whl is outside the workspace"),
        ("{root}/../outside/x.whl", "input in: {root}/../outside/x.whl is outside the workspace"),
        ("/etc/*.conf", "input in: /etc/*.conf is outside the workspace"),
        ("link/*.whl", "input in: link/*.whl: link/x.whl leads outside the workspace"),
        ("link", "input in: link: link leads outside the workspace"),
    ],
)
def test_what_cannot_be_read_is_named(place: Workspace, item: str, problem: str) -> None:
    item = item.replace("{root}", str(place.root))
    with pytest.raises(InputError) as caught:
        place.files("in", [item])
    assert str(caught.value).startswith(problem.replace("{root}", str(place.root)))


def test_outputs_stay_inside_and_are_named_relative(place: Workspace) -> None:
    root = place.root
    assert place.output("out", "reports/r.md") == root / "reports" / "r.md"
    assert place.output("out", f"{root}/reports/r.md") == root / "reports" / "r.md"
    assert place.output("out", ".", directory=True) == root
    with pytest.raises(InputError, match=r"^input out: \. is the workspace itself"):
        place.output("out", ".")
    with pytest.raises(InputError, match=r"^input out: /tmp/r\.md is outside the workspace"):
        place.output("out", "/tmp/r.md")
    assert place.relative(root / "reports" / "r.md") == "reports/r.md"
    assert place.relative(Path("reports/r.md")) == "reports/r.md"
    assert place.relative(Path("/elsewhere/r.md")) == "/elsewhere/r.md"


def test_an_unreadable_workspace_is_named(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"^workspace .*/gone: cannot read it"):
        Workspace.of({"GITHUB_WORKSPACE": str(tmp_path / "gone")})


@pytest.mark.skipif(os.geteuid() != 0, reason="handing files over needs root, as in the container")
def test_hand_over_gives_written_trees_and_their_parents_to_the_owner(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    (root / "kept").mkdir(parents=True)
    os.chown(root, 1001, 1002)
    written = root / "a" / "b" / "history"
    (written / "runs").mkdir(parents=True)
    (written / "runs" / "r.json").write_text("{}")
    (written / "link").symlink_to("/etc/passwd")
    outside = tmp_path / "outside.md"
    outside.write_text("")
    place = Workspace.at(root)
    place.hand_over(written, outside, None, root / "gone")
    for path in (
        root / "a",
        root / "a" / "b",
        written,
        written / "runs",
        written / "runs" / "r.json",
    ):
        assert (path.stat().st_uid, path.stat().st_gid) == (1001, 1002), path
    assert (written / "link").lstat().st_uid == 1001  # the link itself, not /etc/passwd
    assert Path("/etc/passwd").stat().st_uid == 0
    assert outside.stat().st_uid == 0 and (root / "kept").stat().st_uid == 0


def test_each_line_of_a_multi_line_input_is_mapped_like_the_first(tmp_path: Path) -> None:
    """Issue 32: the runner rewrites only the start of an input's value from the host's
    workspace to the container's; the second ``${{ github.workspace }}/…`` line arrived
    as the host's path and was refused as outside the workspace."""
    from wheel_size.action.inputs import workspace_paths

    root = tmp_path / "ws"
    (root / "dist").mkdir(parents=True)
    for name in ("a.whl", "b.whl"):
        (root / "dist" / name).write_text("")
    host = "/home/runner/work/pytorch/pytorch"
    env = {
        "RUNNER_WORKSPACE": "/home/runner/work/pytorch",
        "GITHUB_REPOSITORY": "pytorch/pytorch",
        "INPUT_AUDIT-INPUT": f"{root}/dist/a.whl\n{host}/dist/b.whl\n{host}/dist/*.whl",
    }
    found = workspace_paths(env, "audit-input", root)
    assert found == [root / "dist" / "a.whl", root / "dist" / "b.whl"]
    # Outside paths stay outside: another host directory, or the work folder itself.
    for outside in ("/home/runner/work/pytorch/other/x.whl", "/home/runner/work/pytorch"):
        env["INPUT_AUDIT-INPUT"] = f"{root}/dist/a.whl\n{outside}"
        with pytest.raises(InputError, match="is outside the workspace"):
            workspace_paths(env, "audit-input", root)
