"""The reproduce command's history options: paste-able, no local path, no credentials."""

from __future__ import annotations

from wheel_size.history.reproduce import public_remote, store_reproduce_args


def test_a_remote_url_loses_its_credentials() -> None:
    url = "https://x-access-token:ghs_secret@github.com/pytorch/pytorch.git"
    assert public_remote(url, None, None) == "https://github.com/pytorch/pytorch.git"


def test_a_local_remote_becomes_the_repository_on_the_server() -> None:
    assert public_remote("/tmp/runner/data.git", "o/r", None) == "https://github.com/o/r.git"
    assert public_remote("file:///srv/d.git", "o/r", "https://ghe.example") == (
        "https://ghe.example/o/r.git"
    )
    assert public_remote("/tmp/x", None, None) is None
    assert public_remote("/tmp/x", "not a repo; rm -rf", None) is None


def test_branch_and_remote_as_the_run_used_them() -> None:
    assert store_reproduce_args(data_branch="sizes", data_remote=None, repository="o/r") == (
        "--data-remote",
        "https://github.com/o/r.git",
        "--data-branch",
        "sizes",
    )
    # --data-remote alone implied the default branch: say it.
    assert store_reproduce_args(
        data_branch=None, data_remote="https://h.example/d.git", repository=None
    ) == ("--data-remote", "https://h.example/d.git", "--data-branch", "wheel-size-data")
    # A local --history directory exists only on the runner: nothing to repeat.
    assert store_reproduce_args(data_branch=None, data_remote=None, repository="o/r") == ()
