"""Issue 32, point 1: one identity whatever the token. A GitHub App's installation token
(GET /user answers 403; writes are authored ``size-app[bot]``) without ``bot-login`` used to
be taken for github-actions[bot]: its own issues and comments were disowned and opened again
every run. Now GraphQL's ``viewer`` names the App; ``bot-login`` is accepted with or without
``[bot]``; a login the token does not write as is one error (fake GitHub, real PyGithub)."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_trust_lifecycle import OFFSET, REPO, cfg, connect_repo, make_world, night

from fakegithub import FakeGitHub
from wheel_size.errors import GitHubError
from wheel_size.github.client import connect
from wheel_size.github.port import PyGithubPort
from wheel_size.markers import comment_marker as marker
from wheel_size.sticky import post_sticky_comment

APP = "size-app[bot]"


@pytest.mark.parametrize("configured", [None, "size-app", "size-app[bot]", "Size-App"])
def test_two_runs_with_an_app_token_open_one_issue_per_event(
    tmp_path: Path, fake_github: FakeGitHub, configured: str | None
) -> None:
    w = make_world(tmp_path)
    fake_github.add_repo(REPO, git_dir=w.path)
    fake_github.token_app = APP
    c = cfg(bot_login=configured)
    first = night(connect_repo(fake_github), w, OFFSET, "2025-10-11", c)
    again = night(connect_repo(fake_github), w, OFFSET, "2025-10-11", c)
    later = night(connect_repo(fake_github), w, OFFSET, "2025-10-14", c)
    twice = night(connect_repo(fake_github), w, OFFSET, "2025-10-14", c)
    issues = fake_github.repo(REPO).issues
    assert [i.user.login for i in issues] == [APP]  # one issue, the App's
    assert again.created == [] and again.unchanged == first.created
    assert later.updated == first.created and twice.updated == []  # the follow-up, once
    assert [c.user.login for c in issues[0].comments] == [APP]


@pytest.mark.parametrize("configured", [None, "size-app"])
def test_an_app_tokens_sticky_comment_is_updated_in_place(
    fake_github: FakeGitHub, configured: str | None
) -> None:
    repo = fake_github.add_repo(REPO)
    pr = repo.add_issue("Build ROCm wheels", pull_request=True)
    fake_github.token_app = APP
    for text in ("first", "second", "third"):
        gh = connect(environ=fake_github.env())  # a new run each time
        body = f"{marker('check')}\n{text}"
        issues = PyGithubPort(gh).repository(REPO)
        post_sticky_comment(issues, pr.number, body, "check", bot_login=configured)
    assert [(c.user.login, c.body.split("\n")[1]) for c in pr.comments] == [(APP, "third")]


def test_a_login_the_token_does_not_write_as_is_one_error(
    tmp_path: Path, fake_github: FakeGitHub
) -> None:
    w = make_world(tmp_path)
    fake_github.add_repo(REPO, git_dir=w.path)
    fake_github.token_app = APP
    with pytest.raises(GitHubError, match=r"bot-login other-app: this token writes as size-app"):
        night(connect_repo(fake_github), w, OFFSET, "2025-10-11", cfg(bot_login="other-app"))
    fake_github.token_app = None
    fake_github.token_user = "alice"
    with pytest.raises(GitHubError, match=r"this token writes as alice.*set bot-login: alice"):
        night(connect_repo(fake_github), w, OFFSET, "2025-10-11", cfg(bot_login="size-bot"))
    assert fake_github.repo(REPO).issues == []  # refused before anything was written


def test_where_github_names_no_app_the_first_write_says_which_login_to_set(
    tmp_path: Path, fake_github: FakeGitHub
) -> None:
    """GraphQL refused (an old GHES, a proxy): the guess is checked at the first write and
    the run stops with one line instead of disowning its own issue on every run."""
    w = make_world(tmp_path)
    fake_github.add_repo(REPO, git_dir=w.path)
    fake_github.token_app = APP
    fake_github.graphql_viewer = False
    with pytest.raises(GitHubError, match=r"written as size-app\[bot\].*set bot-login: size-app"):
        night(connect_repo(fake_github), w, OFFSET, "2025-10-11", cfg())
    # With the login set, the next run finds that issue again: nothing is opened twice.
    again = night(connect_repo(fake_github), w, OFFSET, "2025-10-11", cfg(bot_login=APP))
    assert again.created == [] and len(fake_github.repo(REPO).issues) == 1


def test_the_actions_token_is_still_the_actions_bot(
    tmp_path: Path, fake_github: FakeGitHub
) -> None:
    w = make_world(tmp_path)
    fake_github.add_repo(REPO, git_dir=w.path)
    first = night(connect_repo(fake_github), w, OFFSET, "2025-10-11", cfg())
    again = night(connect_repo(fake_github), w, OFFSET, "2025-10-11", cfg())
    assert again.unchanged == first.created
    assert [i.user.login for i in fake_github.repo(REPO).issues] == ["github-actions[bot]"]
