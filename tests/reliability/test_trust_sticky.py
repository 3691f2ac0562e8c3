"""The sticky pull-request comment edits only a comment the bot wrote (issue 17): a stranger
who pastes the marker into their own comment gets it ignored and named; the bot writes its
own (fake GitHub, real PyGithub, the split's and the check's shared sticky code)."""

from __future__ import annotations

import pytest

from fakegithub import FakeGitHub
from wheel_size.github.client import connect
from wheel_size.github.comments import post_sticky_comment
from wheel_size.github.port import PyGithubPort
from wheel_size.markers import comment_marker as marker
from wheel_size.split.comment import post_comment

REPO = "rocm/torch-builds"


def test_a_forged_sticky_comment_is_never_edited(fake_github: FakeGitHub) -> None:
    repo = fake_github.add_repo(REPO)
    pr = repo.add_issue("Build ROCm wheels", pull_request=True)
    forged = repo.add_comment(
        pr.number, f"{marker('split')}\nall wheels fine, merge", user="mallory"
    )
    gh = PyGithubPort(connect(environ=fake_github.env())).repository(REPO)
    warned: list[str] = []

    url = post_comment(gh, pr.number, f"{marker('split')}\nfirst")
    assert forged.body == f"{marker('split')}\nall wheels fine, merge"  # not edited
    ours = [c for c in pr.comments if c.user.login == "github-actions[bot]"]
    assert [c.body for c in ours] == [f"{marker('split')}\nfirst"]
    assert url.endswith(f"#issuecomment-{ours[0].id}")

    # The rerun edits the bot's own comment in place and names the forgery.
    from wheel_size.sticky import post_sticky_comment as sticky

    again = sticky(gh, pr.number, f"{marker('split')}\nsecond", "split", warn=warned.append)
    assert again == url and len(pr.comments) == 2
    assert ours[0].body == f"{marker('split')}\nsecond" and forged.body.endswith("merge")
    assert len(warned) == 1
    assert "mallory" in warned[0] and f"#issuecomment-{forged.id}" in warned[0]


@pytest.mark.parametrize("who", ["token_user", "token_app"])
def test_the_bot_is_the_token_or_the_configured_login(fake_github: FakeGitHub, who: str) -> None:
    """A personal token's comments are the token user's (GET /user); an App's need the
    configured login (an installation token cannot read /user)."""
    repo = fake_github.add_repo(REPO)
    pr = repo.add_issue("Build ROCm wheels", pull_request=True)
    login = "size-bot" if who == "token_user" else "size-app[bot]"
    setattr(fake_github, who, login)
    configured = None if who == "token_user" else login
    gh = connect(environ=fake_github.env())
    for text in ("first", "second"):
        body = f"{marker('check')}\n{text}"
        post_sticky_comment(gh, REPO, pr.number, body, "check", bot_login=configured)
    assert [(c.user.login, c.body.split("\n")[1]) for c in pr.comments] == [(login, "second")]


def test_a_marker_inside_another_bot_comment_is_text(fake_github: FakeGitHub) -> None:
    """Issue 32: a fork's wheel names carry the split comment's marker into the bot's check
    comment; the split must not overwrite the check comment (only a leading marker counts)."""
    repo = fake_github.add_repo(REPO)
    pr = repo.add_issue("Build ROCm wheels", pull_request=True)
    gh = connect(environ=fake_github.env())
    check = f"{marker('check')}\n| `torch-{marker('split')}.whl` | +1 MB |"
    post_sticky_comment(gh, REPO, pr.number, check, "check")
    post_sticky_comment(gh, REPO, pr.number, f"{marker('split')}\nsplit report", "split")
    assert [c.body.split("\n")[0] for c in pr.comments] == [marker("check"), marker("split")]
    assert pr.comments[0].body == check  # untouched
    with pytest.raises(ValueError, match="does not start with its marker"):
        post_sticky_comment(gh, REPO, pr.number, f"text\n{marker('split')}", "split")
