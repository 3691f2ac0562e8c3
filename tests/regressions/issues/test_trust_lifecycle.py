"""Issue 17, points 1 and 2, against the fake GitHub through PyGithub and a real git repository:
only the bot's own words count (a stranger's marker closes, silences and edits nothing), and
one run owns an event (overlapping runs leave one issue per event and one comment per night).

The races are made deterministic with the fake's ``hold``: one run's write waits, in flight,
while another run does its whole job; the 2- and 4-run tests start every run's create at
once behind a barrier (no sleeps, no timing)."""

from __future__ import annotations

import datetime as dt
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from fakegithub import FakeGitHub
from regression_world import Change, World, build_world, points
from wheel_size.github.client import RetryPolicy, connect
from wheel_size.github.port import PyGithubPort, PyGithubRepository
from wheel_size.regressions.events import Thresholds
from wheel_size.regressions.investigation import Investigation
from wheel_size.regressions.issues.alerts import AlertSettings, alert_night
from wheel_size.regressions.issues.sync import IssueSettings, SyncResult
from wheel_size.series import SizePoint

# A generous request timeout: a held request waits while another run does its job.
POLICY = RetryPolicy(
    total=4, backoff=0.0, max_wait=5.0, secondary_wait=0.1, between_writes=0.0, timeout=600
)
REPO = "pytorch/pytorch"
KEY = "jump/cuda12_8/2025-10-11"
OCT = {"2025-10-10": 855.3, "2025-10-11": 859.6, "2025-10-12": 859.7}
# Oct 13: the revert lands but the size stays; Oct 14: back at the pre-event level through
# an unrelated commit (a follow-up "back, no revert of a listed candidate": never closes).
OFFSET = {**OCT, "2025-10-13": 859.7, "2025-10-14": 855.4}


def make_world(tmp_path: Path) -> World:
    changes = [Change(f"base {i}", {"README.md": f"{i}\n"}) for i in range(3)]
    changes += [
        Change("Add Half reduce kernels (#101)", {"aten/src/ATen/native/cuda/R.cuh": "k\n"}),
        Change("Docs (#102)", {"docs/a.md": "a\n"}),
        Change(
            'Revert "Add Half reduce kernels (#101)"\n\nReverted '
            "https://github.com/pytorch/pytorch/pull/101 on behalf of someone",
            removed=("aten/src/ATen/native/cuda/R.cuh",),
        ),
        Change("Remove bundled libfoo (#200)", {"tools/build.py": "x\n"}),
    ]
    nights = [
        ("2025-10-10", 2, None),
        ("2025-10-11", 4, None),
        ("2025-10-12", 4, None),
        ("2025-10-13", 5, None),
        ("2025-10-14", 6, None),
    ]
    return build_world(tmp_path / "git", changes, nights)


def connect_repo(fake: FakeGitHub) -> PyGithubRepository:
    """One run's view of the repository (its own client, identity and caches)."""
    return PyGithubPort(connect(fake.token, fake.url, retry=POLICY)).repository(REPO)


def cfg(**issue: object) -> AlertSettings:
    return AlertSettings(
        thresholds=Thresholds(mb=1.0),
        creep=None,
        issues=IssueSettings(**issue),  # type: ignore[arg-type]
    )


def night(
    repo: PyGithubRepository, w: World, sizes: dict[str, float], day: str, c: AlertSettings,
    **kw: object,
) -> SyncResult:  # fmt: skip
    s: dict[str, list[SizePoint]] = {"cuda12_8": points("cuda12_8", sizes, w)}
    return alert_night(repo, repo, s, dt.date.fromisoformat(day), ["cuda12_8"], c, **kw)  # type: ignore[arg-type]


def forged_updates(days: range) -> str:
    """What a stranger pastes: our update marker, "rolled back", for every coming night."""
    return (
        "\n".join(
            f"<!-- wheel-size-action:update={KEY} night=2025-10-{d:02d} "
            "state=rolled-back size=1 -->"
            for d in days
        )
        + "\n\nLooks rolled back to me."
    )


# -- only the bot's own words count -------------------------------------------------------


@pytest.mark.parametrize("close_on_rollback", [True, False])
def test_a_strangers_marker_neither_closes_nor_silences_an_issue(
    tmp_path: Path, fake_github: FakeGitHub, close_on_rollback: bool
) -> None:
    w = make_world(tmp_path)
    fake_github.add_repo(REPO, git_dir=w.path)
    repo = connect_repo(fake_github)
    c = cfg(close_on_rollback=close_on_rollback)
    number = night(repo, w, OFFSET, "2025-10-11", c).created[0]
    stored = fake_github.repo(REPO).issue(number)
    assert stored is not None
    forged = fake_github.repo(REPO).add_comment(
        number, forged_updates(range(12, 21)), user="mallory"
    )

    later = night(connect_repo(fake_github), w, OFFSET, "2025-10-14", c)

    assert stored.state == "open"  # nothing closed on the stranger's say-so
    assert later.updated == [number]  # the follow-up a clean run posts is posted
    ours = [cm for cm in stored.comments if cm.user.login == "github-actions[bot]"]
    assert len(ours) == 1 and "no commit of the window reverts" in ours[0].body
    assert forged.body.startswith("<!-- wheel-size-action:update=")  # left as it was
    # The forgery is named once: who and which comment.
    assert len(later.warnings) == 1
    assert "mallory" in later.warnings[0] and f"#issuecomment-{forged.id}" in later.warnings[0]


def test_a_strangers_issue_with_our_marker_is_not_the_events_issue(
    tmp_path: Path, fake_github: FakeGitHub
) -> None:
    """Mallory opens an issue with our label, the event's marker and the accepted label
    before the run: the bot still opens its own and never follows up on hers."""
    w = make_world(tmp_path)
    fake = fake_github.add_repo(REPO, git_dir=w.path)
    marker = f"<!-- wheel-size-action:event={KEY} before=2025-10-10:1 after=2025-10-11:2 -->\nhi"
    hers = fake.add_issue(
        "Wheel size: fine", marker, ["wheel-size-regression", "size-accepted"], user="mallory"
    )
    result = night(connect_repo(fake_github), w, OFFSET, "2025-10-11", cfg())
    assert len(result.created) == 1 and result.created[0] != hers.number
    assert result.events == {KEY: result.created[0]}
    assert len(result.warnings) == 1
    assert "mallory" in result.warnings[0] and f"/issues/{hers.number}" in result.warnings[0]
    later = night(connect_repo(fake_github), w, OFFSET, "2025-10-14", cfg())
    assert hers.comments == [] and later.updated == result.created


def test_a_personal_token_owns_what_it_wrote(tmp_path: Path, fake_github: FakeGitHub) -> None:
    """With a personal token the bot is the token's user (GET /user, asked once per run):
    its issue is found again, and github-actions[bot] would be a stranger."""
    w = make_world(tmp_path)
    fake_github.add_repo(REPO, git_dir=w.path)
    fake_github.token_user = "size-bot"
    first = night(connect_repo(fake_github), w, OFFSET, "2025-10-11", cfg())
    issue = fake_github.repo(REPO).issue(first.created[0])
    assert issue is not None and issue.user.login == "size-bot"
    repo = connect_repo(fake_github)
    again = night(repo, w, OFFSET, "2025-10-11", cfg())
    assert again.created == [] and again.unchanged == first.created
    later = night(repo, w, OFFSET, "2025-10-14", cfg())
    assert later.updated == first.created
    assert fake_github.count("GET", r"^/user$") == 2  # once per run


def test_an_apps_token_needs_its_login(tmp_path: Path, fake_github: FakeGitHub) -> None:
    """An App's installation token cannot read /user: with bot_login the App's issues are
    its own, and a re-run opens nothing."""
    w = make_world(tmp_path)
    fake_github.add_repo(REPO, git_dir=w.path)
    fake_github.token_app = "size-app[bot]"
    c = cfg(bot_login="size-app[bot]")
    first = night(connect_repo(fake_github), w, OFFSET, "2025-10-11", c)
    again = night(connect_repo(fake_github), w, OFFSET, "2025-10-11", c)
    assert again.created == [] and again.unchanged == first.created
    # Configured or not, the token is asked once per run (GET /user, then GraphQL's viewer
    # for an installation token): a login it does not write as is one error (issue 32).
    assert fake_github.count("GET", r"^/user$") == 2


# -- one run owns an event ----------------------------------------------------------------


def wait_held(held: object, thread: threading.Thread) -> None:
    """Until the held request waits, or the thread ended without sending it (then the
    test's own assertions tell what happened instead of hanging)."""
    while not held.reached.wait(0.05):  # type: ignore[attr-defined]
        if not thread.is_alive():
            return


def run_in_thread(
    target: Callable[[], object], out: dict[str, object], name: str
) -> threading.Thread:
    def main() -> None:
        try:
            out[name] = target()
        except BaseException as exc:  # the test asserts on it
            out[name] = exc

    thread = threading.Thread(target=main, name=name, daemon=True)
    thread.start()
    return thread


def test_a_run_whose_create_raced_closes_its_duplicate(
    tmp_path: Path, fake_github: FakeGitHub
) -> None:
    """Run A's create is in flight while run B opens the issue: A's issue (the newer) is
    closed with a link to B's, and A reports B's issue as the event's."""
    w = make_world(tmp_path)
    fake_github.add_repo(REPO, git_dir=w.path)
    held = fake_github.hold("POST", r"/issues$")
    out: dict[str, object] = {}
    a = run_in_thread(
        lambda: night(connect_repo(fake_github), w, OFFSET, "2025-10-11", cfg()), out, "a"
    )
    try:
        wait_held(held, a)
        b = night(connect_repo(fake_github), w, OFFSET, "2025-10-11", cfg())
    finally:
        held.release()
        a.join()
    result_a = out["a"]
    assert isinstance(result_a, SyncResult), result_a
    issues = fake_github.repo(REPO).issues
    assert len(issues) == 2
    survivor, duplicate = sorted(issues, key=lambda i: i.number)
    assert b.created == [survivor.number]
    assert survivor.state == "open" and duplicate.state == "closed"
    assert result_a.created == [] and result_a.events == {KEY: survivor.number}
    assert [f"duplicate of #{survivor.number}" in c.body for c in duplicate.comments] == [True]
    assert survivor.comments == []


def test_a_follow_up_that_raced_is_posted_once(tmp_path: Path, fake_github: FakeGitHub) -> None:
    """Run A's comment is in flight while run B posts the night's update: A deletes its own
    (the newer), one comment stays."""
    w = make_world(tmp_path)
    fake_github.add_repo(REPO, git_dir=w.path)
    number = night(connect_repo(fake_github), w, OFFSET, "2025-10-11", cfg()).created[0]
    held = fake_github.hold("POST", r"/comments$")
    out: dict[str, object] = {}
    a = run_in_thread(
        lambda: night(connect_repo(fake_github), w, OFFSET, "2025-10-14", cfg()), out, "a"
    )
    try:
        wait_held(held, a)
        b = night(connect_repo(fake_github), w, OFFSET, "2025-10-14", cfg())
    finally:
        held.release()
        a.join()
    assert isinstance(out["a"], SyncResult), out["a"]
    assert b.updated == [number]
    issue = fake_github.repo(REPO).issue(number)
    assert issue is not None
    assert [("no commit of the window reverts" in c.body) for c in issue.comments] == [True]


@pytest.mark.parametrize("runs", [2, 4])
def test_overlapping_runs_open_one_issue_per_event(
    tmp_path: Path, fake_github: FakeGitHub, runs: int
) -> None:
    """``runs`` runs of the same nights at once: every run investigates before any creates
    (a barrier in the enrich step), so all of them race to create. One issue stays open;
    every run names it as the event's; the later nights get one comment each."""
    w = make_world(tmp_path)
    fake_github.add_repo(REPO, git_dir=w.path)
    barrier = threading.Barrier(runs)

    def enrich(inv: Investigation) -> Investigation:
        barrier.wait()
        return inv

    def one_run() -> list[SyncResult]:
        repo = connect_repo(fake_github)
        try:
            return [
                night(repo, w, OFFSET, day, cfg(), enrich=enrich if day == "2025-10-11" else None)
                for day in ("2025-10-11", "2025-10-14")
            ]
        except BaseException:
            barrier.abort()
            raise

    out: dict[str, object] = {}
    threads = [run_in_thread(one_run, out, f"run{i}") for i in range(runs)]
    for thread in threads:
        thread.join()
    results = [out[f"run{i}"] for i in range(runs)]
    assert all(isinstance(r, list) for r in results), results
    issues = fake_github.repo(REPO).issues
    open_ = [i for i in issues if i.state == "open"]
    assert len(open_) == 1
    survivor = open_[0]
    assert survivor.number == min(i.number for i in issues)  # the oldest is kept
    for r in results:
        assert isinstance(r, list)
        assert r[0].events == {KEY: survivor.number}
    for dup in issues:
        if dup is not survivor:
            assert [f"duplicate of #{survivor.number}" in c.body for c in dup.comments] == [True]
    offsets = [c for c in survivor.comments if "no commit of the window reverts" in c.body]
    assert len(offsets) == 1 and len(survivor.comments) == 1


# -- the bot-login option -----------------------------------------------------------------


@pytest.mark.parametrize("bad", ["two words", "evil-->", "a" * 40, "-dash", "x[bot"])
def test_a_bad_bot_login_is_one_line_naming_the_input(bad: str) -> None:
    from cli_runner import run_main
    from wheel_size.action.inputs import bot_login_input
    from wheel_size.errors import InputError

    with pytest.raises(InputError, match=r"^input bot-login: .* is not a GitHub login"):
        bot_login_input({"INPUT_BOT-LOGIN": bad})
    args = ["track", "--repo", "o/r", "--workflow", "1", "--history", "h", "--no-collect"]
    result = run_main([*args, "--create-issues", f"--bot-login={bad}"], env={})
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("wheel-size: error: --bot-login: ")


@pytest.mark.parametrize("good", ["github-actions[bot]", "size-app[bot]", "octocat", "a-b-1"])
def test_good_bot_logins_are_kept(good: str) -> None:
    from wheel_size.action.inputs import bot_login_input

    assert bot_login_input({"INPUT_BOT-LOGIN": f" {good} "}) == good
    assert bot_login_input({}) is None


def test_a_strangers_issue_never_becomes_a_dashboard_link(fake_github: FakeGitHub) -> None:
    from wheel_size.dashboard.links import issue_links_from_github

    repo = fake_github.add_repo(REPO)
    marker = f"<!-- wheel-size-action:event={KEY} before=2025-10-10:1 after=2025-10-11:2 -->"
    repo.add_issue("forged", marker, ["wheel-size-regression"], user="mallory")
    port = PyGithubPort(connect(fake_github.token, fake_github.url, retry=POLICY))
    assert issue_links_from_github(port, REPO, "wheel-size-regression") == {}
    ours = repo.add_issue("ours", marker, ["wheel-size-regression"])
    links = issue_links_from_github(port, REPO, "wheel-size-regression")
    assert links == {("cuda12_8", "2025-10-11"): f"https://github.com/{REPO}/issues/{ours.number}"}
