from __future__ import annotations

import datetime as dt
import re

from wheel_size.regressions.events import Event
from wheel_size.regressions.investigation import Candidate, Investigation
from wheel_size.regressions.issues.body import (
    Reproduce,
    event_marker,
    issue_title,
    render_body,
    render_issue_markdown,
)
from wheel_size.regressions.ranking.classify import Classified
from wheel_size.regressions.ranking.evidence import Status, cross_variant
from wheel_size.regressions.window.commits import Commit
from wheel_size.regressions.window.compare import Night, Window
from wheel_size.regressions.window.reverts import RevertPair
from wheel_size.render.safe_markdown import BODY_LIMIT
from wheel_size.series import SizePoint
from wheel_size.units import MB

D = dt.date(2025, 10, 11)


def investigation(n: int, title_len: int = 60) -> Investigation:
    before = SizePoint(D - dt.timedelta(days=1), "cuda12_8", int(855.3 * MB), 1, "a" * 40, "b" * 40)
    after = SizePoint(D, "cuda12_8", int(859.6 * MB), 2, "c" * 40, "d" * 40)
    event = Event("jump", "cuda12_8", D, before, after)
    commits = [
        Commit(f"{i:040x}", f"Change {i} " + "x" * title_len + f" @user{i} (#{i})")
        for i in range(n)
    ]
    candidates = [
        Candidate(Classified(c, ("unknown",), 20, rank=i + 1), Status(None, "no data"), None, None)
        for i, c in enumerate(commits)
    ]
    window = Window(
        Night("2025-10-10", "a" * 40, "b" * 40),
        Night("2025-10-11", "c" * 40, "d" * 40),
        "base",
        ("b" * 40, "d" * 40),
        commits,
        n,
    )
    return Investigation(
        repo="o/r",
        event=event,
        window=window,
        candidates=candidates,
        reverts_removed=[RevertPair(commits[0], commits[1])] if n > 1 else [],
        cross=cross_variant("cuda12_8", {"cuda12_8": 4.3, "cpu": 0.0}),
        chart=[before, after],
    )


def test_title_and_marker() -> None:
    inv = investigation(3)
    assert issue_title(inv.event) == "Wheel size: cuda12_8 +4.3 MB on 2025-10-11"
    body = render_body(inv, repo_url="https://github.com/o/r")
    assert body.splitlines()[0] == event_marker(inv.event)
    assert "left out" not in body


def test_huge_window_fits_and_says_how_many_were_left_out() -> None:
    inv = investigation(3000, title_len=100)
    body = render_body(
        inv, repo_url="https://github.com/o/r", reproduce=Reproduce(("--date", "2025-10-11"))
    )
    assert len(body) <= BODY_LIMIT
    assert body.startswith(event_marker(inv.event))
    shown = sum(1 for line in body.splitlines() if re.match(r"\| \d+ \| ", line))
    assert 100 < shown < 3000
    assert f"… {3000 - shown} more candidates left out" in body, body[-2000:]
    # What follows the table is still there.
    assert "### Reproduce" in body and "size-accepted" in body


def test_evidence_block_and_markdown_without_marker() -> None:
    inv = investigation(2)
    inv.evidence_markdown = "`libtorch_cuda.so` `.nv_fatbin` grew by 4.2 MB"
    body = render_body(inv, repo_url="https://github.com/o/r")
    assert "### Wheel contents\n\n`libtorch_cuda.so`" in body
    md = render_issue_markdown(inv, repo_url="https://github.com/o/r")
    assert not md.startswith("<!--") and "<!-- wheel-size-action:" not in md
    assert "size-accepted" not in md  # the issue footer is for issues only


def test_the_chart_has_short_distinct_labels_over_a_month() -> None:
    # The issue's chart labels as the report's do: "Sep 12", "13", ... "Oct 1", never
    # thirty "MM-DD" labels that run into each other.
    inv = investigation(2)
    start = D - dt.timedelta(days=29)
    inv.chart = [
        SizePoint(start + dt.timedelta(days=i), "cuda12_8", int((850 + i * 0.1) * MB), i)
        for i in range(30)
    ]
    body = render_body(inv, repo_url="https://github.com/o/r")
    axis = next(line for line in body.splitlines() if "x-axis" in line)
    labels = axis[axis.index("[") + 1 : axis.rindex("]")].replace('"', "").split(", ")
    assert labels[:3] == ["Sep 12", "13", "14"] and "Oct 1" in labels and labels[-1] == "11"
    assert len(set(labels)) == 30
