"""The reproduce command's history options: paste-able, no local path, no credentials."""

from __future__ import annotations

from wheel_size.history.reproduce import public_remote, store_reproduce_args


def test_a_remote_url_loses_its_credentials() -> None:
    url = "https://x-access-token:ghs_secret@github.com/pytorch/pytorch.git"
    assert public_remote(url, None, None) == "https://github.com/pytorch/pytorch.git"


def test_a_remote_is_named_as_given() -> None:
    """scp-style and local remotes are where the data is: never the repository on github.com
    (the README's own example is git@github.com:me/sizes.git)."""
    scp = "git@github.com:me/sizes.git"
    assert public_remote(scp, "o/r", None) == scp
    assert public_remote("me:secret@host.example:sizes.git", "o/r", None) == (
        "me@host.example:sizes.git"
    )
    assert public_remote("host.example:sizes.git", "o/r", None) == "host.example:sizes.git"
    assert public_remote("/srv/runner/data.git", "o/r", None) == "/srv/runner/data.git"
    assert public_remote("file:///srv/d.git", "o/r", "https://ghe.example") == "file:///srv/d.git"
    # ssh keeps the user name the server needs, never a password
    assert public_remote("ssh://git:pw@github.com/me/sizes.git", "o/r", None) == (
        "ssh://git@github.com/me/sizes.git"
    )
    # no remote: the data branch is in the repository itself
    assert public_remote(None, "o/r", "https://ghe.example") == "https://ghe.example/o/r.git"
    assert public_remote(None, None, None) is None
    assert public_remote(None, "not a repo; rm -rf", None) is None


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
