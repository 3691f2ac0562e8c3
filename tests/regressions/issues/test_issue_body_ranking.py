"""The issue body shows the ranked top ten with their reasons and collapses the rest; the
content diff, once attached, re-ranks the candidates (once)."""

from __future__ import annotations

import datetime as dt
import re

from wheel_size.regressions.events import Event
from wheel_size.regressions.investigation import Candidate, Investigation, _cross
from wheel_size.regressions.issues.body import render_body
from wheel_size.regressions.issues.context import plain_why
from wheel_size.regressions.ranking.evidence import Status
from wheel_size.regressions.ranking.fingerprint import fingerprint
from wheel_size.regressions.ranking.rank import rank_commits
from wheel_size.regressions.window.commits import Commit, files_from_api
from wheel_size.regressions.window.compare import Night, Window
from wheel_size.render import render
from wheel_size.series import SizePoint
from wheel_size.units import MB

D = dt.date(2026, 1, 17)
DELTAS = {"cpu": 0.0, "cuda12_6": 0.0, "cuda12_8": -67.1, "cuda12_9": -70.3}


def commits(n: int) -> list[Commit]:
    out = []
    for i in range(n):
        entries = [{"filename": f"torch/csrc/f{i}.cpp", "status": "modified", "additions": 3}]
        out.append(Commit(f"{i:040x}", f"Change {i} (#{i})", files=files_from_api(entries)))
    arch = {
        "filename": ".ci/manywheel/build_cuda.sh",
        "status": "modified",
        "patch": "@@ -1 +1 @@ case ${CUDA_VERSION} in\n  12.8|12.9)\n"
        '-  TORCH_CUDA_ARCH_LIST="5.0;6.0;9.0"\n+  TORCH_CUDA_ARCH_LIST="9.0"\n',
    }
    out.insert(
        n // 2, Commit("f" * 40, "[CI] Trim the 12.8/12.9 arch lists", files=files_from_api([arch]))
    )
    return out


def investigation(n: int) -> Investigation:
    before = SizePoint(D - dt.timedelta(days=1), "cuda12_8", int(870.2 * MB), 1, "a" * 40, "b" * 40)
    after = SizePoint(D, "cuda12_8", int(803.1 * MB), 2, "c" * 40, "d" * 40)
    event = Event("jump", "cuda12_8", D, before, after)
    fp = fingerprint("cuda12_8", DELTAS)
    window_commits = commits(n)
    ranked = rank_commits(window_commits, fp)
    candidates = [Candidate(r, Status(None, "no data"), None, None) for r in ranked]
    window = Window(
        Night("2026-01-16", "a" * 40, "b" * 40),
        Night("2026-01-17", "c" * 40, "d" * 40),
        "base",
        ("b" * 40, "d" * 40),
        window_commits,
        len(window_commits),
    )
    cross = _cross("cuda12_8", dict(DELTAS), fp)  # as investigate() reads a shrink
    return Investigation(
        repo="o/r",
        event=event,
        window=window,
        candidates=candidates,
        reverts_removed=[],
        cross=cross,
        chart=[before, after],
        fingerprint=fp,
    )


def test_top_ten_with_reasons_and_the_rest_collapsed() -> None:
    inv = investigation(14)
    body = render_body(inv, repo_url="https://github.com/o/r")
    assert "shrank by 67.1 MB" in body and "grew by" not in body
    # the variants table and its reading say the same direction as the headline
    assert "| **cuda12_8** | -67.10 MB |" in body
    assert "did not grow" not in body and "CUDA 12.8, 12.9 shrank" in body
    main, rest = body.split("<details><summary>5 more candidates</summary>", 1)
    top_rows = [line for line in main.splitlines() if re.match(r"\| \d+ \| \[", line)]
    assert len(top_rows) == 10
    assert top_rows[0].startswith("| 1 | [`ffffffffffff`]")
    # The evidence, in the Why column, in plain words (issue 28 item 6).
    assert "what its files can change: " in top_rows[0]
    assert "reach: " not in body and "text: " not in body and "against: " not in body
    rest_rows = [line for line in rest.split("</details>", 1)[0].splitlines() if "](" in line]
    assert len(rest_rows) == 5


def test_content_diff_reranks_once() -> None:
    inv = investigation(3)
    fp = inv.fingerprint
    assert fp is not None
    # A shared-code commit that names cuSPARSELt: by text alone it is not first.
    entries = [{"filename": "aten/src/ATen/native/sparse/Sparse.cpp", "status": "modified"}]
    named = Commit("e" * 40, "Clean up the cuSPARSELt loader", files=files_from_api(entries))
    window = [*(c.classified.commit for c in inv.candidates), named]
    inv.candidates = [
        Candidate(r, Status("LIKELY" if r.commit is named else None, "x"), None, None)
        for r in rank_commits(window, fp)
    ]
    score_before = next(c.classified.score for c in inv.candidates if c.classified.commit is named)
    inv.evidence_json = {"available": False, "diff": None}
    inv.apply_content()  # nothing to rank with: no change
    assert not inv.content_ranked
    inv.evidence_json = {
        "diff": {
            "files": [
                {
                    "path": "torch/lib/libcusparseLt.so.0",
                    "status": "removed",
                    "old_installed": 67 * MB,
                    "new_installed": 0,
                }
            ]
        }
    }
    inv.apply_content()
    after = {c.classified.commit.sha: c for c in inv.candidates}
    moved = after[named.sha]
    assert _content_ranked(inv) and moved.classified.score == score_before + 25
    assert moved.status.status == "LIKELY"  # statuses travel with their commits
    assert "libcusparseLt.so.0 left the wheel" in moved.why
    order = [c.classified.commit.sha for c in inv.candidates]
    inv.apply_content()
    assert [c.classified.commit.sha for c in inv.candidates] == order


def _content_ranked(inv: Investigation) -> bool:
    """Read again: mypy keeps a narrowed attribute across the method call that changed it."""
    return inv.content_ranked


def test_measured_builds_stay_decisive_when_the_contents_come_later() -> None:
    """Builds attached before the content diff: ranking again with the contents keeps the
    build evidence first and the CONFIRMED candidate on top, its score the highest shown
    (issue 28: the order follows the scores; the status is set in one place)."""
    from wheel_size.regressions.builds.evidence import BuildVerdict, Measurement

    inv = investigation(3)
    last = inv.candidates[-1]
    sha = last.classified.commit.sha
    before = Measurement("p" * 40, 900 * MB, 1, "artifact", "artifact of run 1", "u")
    after = Measurement(sha, 833 * MB, 1, "artifact", "artifact of run 2", "u")
    inv.build_verdicts = {sha: BuildVerdict(sha, "p" * 40, "CONFIRMED", "measured", after, before)}
    inv.settle()
    assert inv.candidates[0].classified.commit.sha == sha
    inv.evidence_json = {"diff": {"files": [{"path": "torch/lib/libtorch_cuda.so",
                                             "status": "changed", "old_installed": 900 * MB,
                                             "new_installed": 833 * MB}]}}  # fmt: skip
    inv.apply_content()
    top = inv.candidates[0]
    assert top.classified.commit.sha == sha
    assert top.status.status == "CONFIRMED" and top.why.startswith("build: -67.00 MB between")
    assert [c.classified.rank for c in inv.candidates] == list(range(1, len(inv.candidates) + 1))
    scores = [c.classified.score for c in inv.candidates]
    assert scores == sorted(scores, reverse=True)


def test_no_clear_culprit_in_the_issue_and_the_report_note() -> None:
    """Nothing speaks for the leader (docs and Python only): the issue says "no clear
    culprit" with the leading group, and the report's note names no cause."""
    from wheel_size.regressions.issues.notes import notes_for

    inv = investigation(0)
    fp = inv.fingerprint
    assert fp is not None
    docs = Commit("1" * 40, "[Docs] Typo", files=files_from_api(
        [{"filename": "docs/a.md", "status": "modified"}]))  # fmt: skip
    py = Commit("2" * 40, "[dynamo] Support groupby", files=files_from_api(
        [{"filename": "torch/_dynamo/b.py", "status": "modified"}]))  # fmt: skip
    inv.candidates = [
        Candidate(r, Status(None, "plain"), None, None) for r in rank_commits([docs, py], fp)
    ]
    assert not inv.clear and len(inv.leading) == 2
    body = render_body(inv, repo_url="https://github.com/o/r")
    line = next(x for x in body.splitlines() if "**No clear culprit.**" in x)
    assert "`111111111111`" in line and "`222222222222`" in line
    note = notes_for(inv, [inv.event], 7, "https://github.com/o/r/issues/7")[0]
    assert note.cause_sha is None and note.cause_title == "no clear culprit"
    assert inv.to_json()["clear_culprit"] is False


def test_each_kind_of_evidence_is_named_once_in_a_row() -> None:
    """The Why cell of the quickstart's Oct 11 issue read "its title and diff: …; its title
    and diff: …; its title and diff: …": the label once, then its findings."""
    why = (
        "reach: can move only 3 of the 7 variants that moved; text: fits a few-MB change; "
        "text: names code-generation flags (-O2, -O3); text: names CUDA; "
        "against: reach: ships in no wheel; text: a docs title"
    )
    assert plain_why(why) == (
        "what its files can change: can move only 3 of the 7 variants that moved; "
        "its title and diff: fits a few-MB change; names code-generation flags (-O2, -O3); "
        "names CUDA; speaks against it: what its files can change: ships in no wheel; "
        "its title and diff: a docs title"
    )
    for row in render_body(investigation(14), repo_url="https://github.com/o/r").splitlines():
        for label in ("its title and diff: ", "what its files can change: ", "wheel contents: "):
            assert row.count(label) <= 2  # once for it, at most once more against it


def _verdict(body: str) -> str:
    return next(line for line in body.splitlines() if line.startswith("**Verdict"))


def test_the_verdict_names_only_the_evidence_that_was_read() -> None:
    """Without the wheels' contents the verdict said "from what its changes can reach and
    the wheel contents": a reader then trusts a diff nobody made."""
    inv = investigation(14)
    line = _verdict(render_body(inv, repo_url="https://github.com/o/r"))
    assert line.startswith("**Verdict: most likely `ffffffffffff`")
    assert "from what its changes can reach and its title and diff;" in line
    assert "wheel contents" not in line
    # all three kinds read: listed in the evidence order, as a sentence
    three = ["content", "reach", "text"]  # the template words them
    leading = {"kind": "leading", "commits": [{"sha": "e" * 12, "title": "T"}], "evidence": three}
    text = render("regression_verdict.md.j2", verdict=leading)
    assert "from the wheel contents, what its changes can reach and its title and diff;" in text
    text = render("regression_verdict.md.j2", verdict={**leading, "evidence": []})
    assert "from the kind of change it is;" in text
    assert "only some of the variants" not in text


def test_a_leader_that_reaches_only_some_variants_says_so_in_the_verdict() -> None:
    """The quickstart's Oct 11 verdict named a CUDA-only -O3 commit "most likely" on a night
    when the CPU, ROCm and XPU wheels grew too; that caveat sat only in a table below."""
    leading = {
        "kind": "leading",
        "commits": [{"sha": "f" * 12, "title": "Build CUDA kernels with -O3"}],
        "evidence": ["reach"],
        "partial": True,
    }
    text = render("regression_verdict.md.j2", verdict=leading)
    assert "can move only some of the variants that moved" in text
    assert text.index("can move only some") < text.index("A build of it")


def test_a_shrink_that_re_lands_is_said_to_shrink_again() -> None:
    """The follow-up of a re-landed change said "Grew again" whatever its direction: a
    -29.7 MB shrink whose reland shrinks the wheel again is "Shrank again"."""
    row = {
        "state": "grew",
        "date": "2026-01-20",
        "variant": "cuda12_8",
        "size_mb": 810.0,
        "since_event_mb": -30.5,
        "since_before_mb": -60.2,
        "before_date": "2026-01-05",
        "event_date": "2026-01-06",
        "reason": "abc re-lands the listed candidate def",
        "run_url": None,
    }
    text = render("regression_update.md.j2", markers="", rows=[row], closing=False)
    assert "**Shrank again** on 2026-01-20" in text and "Grew again" not in text
    grown = render(
        "regression_update.md.j2",
        markers="",
        rows=[{**row, "since_event_mb": 4.1, "since_before_mb": 8.2}],
        closing=False,
    )
    assert "**Grew again** on 2026-01-20" in grown
