"""The fake's token identity (GET /user, who writes), comments by other users, comment
deletion and held requests."""

from __future__ import annotations

import threading

import requests

from fakegithub import FakeGitHub


def call(fake: FakeGitHub, method: str, path: str, **kw: object) -> requests.Response:
    headers = {"Authorization": f"token {fake.token}"}
    return requests.request(method, fake.url + path, headers=headers, timeout=30, **kw)  # type: ignore[arg-type]


def test_an_installation_token_has_no_user_and_writes_as_the_bot(fake_github: FakeGitHub) -> None:
    repo = fake_github.add_repo("o/r")
    answer = call(fake_github, "GET", "/user")
    assert answer.status_code == 403 and "not accessible by integration" in answer.json()["message"]
    made = call(fake_github, "POST", "/repos/o/r/issues", json={"title": "t"})
    assert made.json()["user"]["login"] == "github-actions[bot]"
    fake_github.token_app = "size-app[bot]"
    made = call(fake_github, "POST", "/repos/o/r/issues/1/comments", json={"body": "b"})
    assert made.json()["user"]["login"] == "size-app[bot]"
    assert call(fake_github, "GET", "/user").status_code == 403
    assert repo.comments[0].user.type == "Bot"


def test_a_personal_token_is_its_user(fake_github: FakeGitHub) -> None:
    fake_github.add_repo("o/r")
    fake_github.token_user = "size-bot"
    assert call(fake_github, "GET", "/user").json()["login"] == "size-bot"
    made = call(fake_github, "POST", "/repos/o/r/issues", json={"title": "t"})
    assert made.json()["user"]["login"] == "size-bot"


def test_comments_by_others_and_deletion(fake_github: FakeGitHub) -> None:
    repo = fake_github.add_repo("o/r")
    issue = repo.add_issue("t")
    theirs = repo.add_comment(issue.number, "hello", user="mallory")
    listed = call(fake_github, "GET", f"/repos/o/r/issues/{issue.number}/comments").json()
    assert [(c["user"]["login"], c["body"]) for c in listed] == [("mallory", "hello")]
    assert call(fake_github, "DELETE", f"/repos/o/r/issues/comments/{theirs.id}").status_code == 204
    assert issue.comments == []
    assert call(fake_github, "DELETE", f"/repos/o/r/issues/comments/{theirs.id}").status_code == 404


def test_a_held_request_waits_for_its_release(fake_github: FakeGitHub) -> None:
    repo = fake_github.add_repo("o/r")
    held = fake_github.hold("POST", r"/issues$")
    answers: list[int] = []
    thread = threading.Thread(
        target=lambda: answers.append(
            call(fake_github, "POST", "/repos/o/r/issues", json={"title": "t"}).status_code
        )
    )
    thread.start()
    held.reached.wait()
    assert repo.issues == [] and answers == []  # in flight, not carried out
    second = call(fake_github, "POST", "/repos/o/r/issues", json={"title": "u"})
    assert second.status_code == 201  # only the first matching request is held
    held.release()
    thread.join()
    assert answers == [201] and [i.title for i in repo.issues] == ["u", "t"]
