"""The sticky pull-request comment edits only a comment the bot wrote (issue 17): a stranger
who pastes the marker into their own comment gets it ignored and named; the bot writes its
own (the split's and the check's shared sticky code, over the in-memory port: what the
bot's login is over HTTP is ``tests/regressions/issues/test_app_identity.py``'s)."""

from __future__ import annotations

import pytest

from fakegithub import FakeGitHub
from fakegithub.memory import MemoryGitHub
from wheel_size.markers import comment_marker as marker
from wheel_size.split.comment import post_comment
from wheel_size.sticky import post_sticky_comment

REPO = "rocm/torch-builds"
TAG = marker("split")


def test_a_forged_sticky_comment_is_never_edited(github_world: FakeGitHub) -> None:
    repo = github_world.add_repo(REPO)
    pr = repo.add_issue("Build ROCm wheels", pull_request=True)
    forged = repo.add_comment(pr.number, f"{TAG}\nall wheels fine, merge", user="mallory")
    gh = MemoryGitHub(github_world).repository(REPO)
    warned: list[str] = []

    url = post_comment(gh, pr.number, f"{TAG}\nfirst")
    assert forged.body == f"{TAG}\nall wheels fine, merge"  # not edited
    ours = [c for c in pr.comments if c.user.login == "github-actions[bot]"]
    assert [c.body for c in ours] == [f"{TAG}\nfirst"]
    assert url.endswith(f"#issuecomment-{ours[0].id}")

    # The rerun edits the bot's own comment in place and names the forgery.
    again = post_sticky_comment(gh, pr.number, f"{TAG}\nsecond", "split", warn=warned.append)
    assert again == url and len(pr.comments) == 2
    assert ours[0].body == f"{TAG}\nsecond" and forged.body.endswith("merge")
    assert len(warned) == 1
    assert "mallory" in warned[0] and f"#issuecomment-{forged.id}" in warned[0]


@pytest.mark.parametrize("who", ["token_user", "token_app"])
def test_the_bot_is_the_token_or_the_configured_login(github_world: FakeGitHub, who: str) -> None:
    """A personal token's comments are the token user's (GET /user); an App's need the
    configured login (an installation token cannot read /user)."""
    repo = github_world.add_repo(REPO)
    pr = repo.add_issue("Build ROCm wheels", pull_request=True)
    login = "size-bot" if who == "token_user" else "size-app[bot]"
    setattr(github_world, who, login)
    configured = None if who == "token_user" else login
    gh = MemoryGitHub(github_world).repository(REPO)
    for text in ("first", "second"):
        body = f"{marker('check')}\n{text}"
        post_sticky_comment(gh, pr.number, body, "check", bot_login=configured)
    assert [(c.user.login, c.body.split("\n")[1]) for c in pr.comments] == [(login, "second")]


def test_a_marker_inside_another_bot_comment_is_text(github_world: FakeGitHub) -> None:
    """Issue 32: a fork's wheel names carry the split comment's marker into the bot's check
    comment; the split must not overwrite the check comment (only a leading marker counts)."""
    repo = github_world.add_repo(REPO)
    pr = repo.add_issue("Build ROCm wheels", pull_request=True)
    gh = MemoryGitHub(github_world).repository(REPO)
    check = f"{marker('check')}\n| `torch-{TAG}.whl` | +1 MB |"
    post_sticky_comment(gh, pr.number, check, "check")
    post_sticky_comment(gh, pr.number, f"{TAG}\nsplit report", "split")
    assert [c.body.split("\n")[0] for c in pr.comments] == [marker("check"), marker("split")]
    assert pr.comments[0].body == check  # untouched
    with pytest.raises(ValueError, match="does not start with its marker"):
        post_sticky_comment(gh, pr.number, f"text\n{TAG}", "split")


def test_a_comment_an_older_release_wrote_is_found_and_rewritten(github_world: FakeGitHub) -> None:
    """Sticky comments written before the one prefix (``<!-- wheel-size:split -->``) are the
    bot's: the next run edits that comment, in the one prefix, and opens no second one."""
    repo = github_world.add_repo(REPO)
    pr = repo.add_issue("Build ROCm wheels", pull_request=True)
    old = repo.add_comment(pr.number, "<!-- wheel-size:split -->\nold", user="github-actions[bot]")
    gh = MemoryGitHub(github_world).repository(REPO)
    url = post_comment(gh, pr.number, f"{TAG}\nnew")
    assert len(pr.comments) == 1 and url.endswith(f"#issuecomment-{old.id}")
    assert old.body == f"{TAG}\nnew"
