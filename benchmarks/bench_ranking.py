"""Ranking evaluation, development and frozen blind parts: each window's answer (culprit
rank, with and without the wheel contents; no jump; no clear culprit) and the build
statuses Method A gives from the windows' per-commit builds.

usage: python benchmarks/bench_ranking.py [--why] [--legacy] [DIR ...]

``--legacy``: per-candidate build lookups down the ranking, as before issue 28 (the
"before" column); by default every build in the window is read and bracketed.

Without DIR: tests/data/ranking (development: rules are written against it),
tests/data/ranking_blind (frozen blind: written before the rules it judges, never tuned on;
a ranking change is judged there), tests/data/ranking_blind2 (frozen: written after
those rules and run once) and tests/data/ranking_blind3 (frozen: written blind to the rules'
code, run once). docs/benchmarks.md reports the output.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from ranking_eval import (
    BLIND,
    BLIND2,
    BLIND3,
    BLIND4,
    DATA,
    Result,
    Window,
    evaluate,
    load_windows,
)
from wheel_size.regressions.investigation import _cross
from wheel_size.regressions.ranking.classify import CATEGORIES
from wheel_size.regressions.ranking.evidence import (
    CLEARED,
    CONFIRMED,
    LIKELY,
    NOT_CONFIRMED,
    Status,
    assess,
    with_build_status,
)

Pairs = tuple[int, int]


def _answer(window: Window, result: Result) -> str:
    if window.no_jump:
        return "no jump: said" if result.answered else "no jump: MISSED"
    if window.unclear:
        return "no clear culprit: said" if result.answered else "no clear culprit: MISSED"
    rank = "—" if result.rank is None else str(result.rank)
    return rank + (" (said no clear culprit)" if result.said_unclear else "")


def _table(rows: list[tuple[Window, Result, Result]], show_why: bool) -> None:
    print("| Window | Night | Candidates | Answer | Without wheel contents | Build statuses |")
    print("|---|---|---:|---|---|---|")
    for window, full, bare in rows:
        right, want = full.statuses_right
        statuses = f"{right}/{want}" if want else ""
        if full.statuses_wrong:
            statuses += f", {full.statuses_wrong} wrong"
        night = "no jump" if window.no_jump else window.direction
        with_content = _answer(window, full) if window.content else "(no diff)"
        print(
            f"| `{window.path.stem}` | {night}, {full.fingerprint.scope()} | "
            f"{len(full.ranked)} | {with_content} | {_answer(window, bare)} | {statuses} |"
        )
        if show_why and full.culprit is not None:
            print(f"|  | why: {full.culprit.why()} | | | | |")


def _summary(label: str, rows: list[tuple[Window, Result, Result]], legacy: bool = False) -> None:
    ranked = [r for r in rows if not r[0].no_jump and not r[0].unclear]
    n = len(ranked)
    print(f"\n{label} ({len(rows)} windows):")
    for name, index in (("with the wheel contents where available", 1), ("without", 2)):
        results = [row[index] for row in ranked]
        top3 = sum(r.answered for r in results)
        top1 = sum(r.first for r in results)
        mrr = sum(1 / r.rank for r in results if r.rank) / n if n else 0.0
        print(
            f"- culprits in the top 3, {name}: {top3}/{n}; first: {top1}/{n}; "
            f"mean reciprocal rank {mrr:.2f}"
        )
    full = [row[1] for row in rows]
    right = sum(r.statuses_right[0] for r in full)
    want = sum(r.statuses_right[1] for r in full)
    wrong = sum(r.statuses_wrong for r in full)
    unlooked = sum(r.statuses_not_looked_up for r in full)
    print(
        f"- build statuses right: {right}/{want} ({wrong} wrong, {unlooked} not looked up: "
        "the night was accounted for above them)"
    )
    for kind, attr in (("no-jump nights answered as such", "no_jump"),
                       ("'no clear culprit' answered", "unclear")):  # fmt: skip
        members = [row[1] for row in rows if getattr(row[0], attr)]
        if members:
            print(f"- {kind}: {sum(r.answered for r in members)}/{len(members)}")
    likely = _likely_per_issue(rows, legacy)
    print(f"- LIKELY per issue (as the issue shows it, builds read): {likely}")
    said = sum(r.said_unclear for r in (row[1] for row in ranked))
    print(f"- 'no clear culprit' said on windows that have a culprit: {said}/{n}")
    on_culprits, on_others = _likely_from_code(rows)
    print(
        f"- LIKELY read from the code (no builds): {on_culprits[0]}/{on_culprits[1]} culprits, "
        f"{on_others[0]}/{on_others[1]} other candidates"
    )


def _legacy_status(current: Status, build_status: str, reason: str) -> Status:
    """How a build lookup set the status before issue 28 (any lookup that decided nothing
    made the candidate LIKELY), for the "before" column."""
    if build_status != LIKELY:
        return Status(build_status, reason)
    if current.status in (CONFIRMED, CLEARED, NOT_CONFIRMED):
        return current
    if current.status is None and current.evidence.startswith(("ships no code", "changes only")):
        return current
    return Status(LIKELY, reason)


def _final_statuses(window: Window, full: Result, legacy: bool) -> dict[str, str | None]:
    """Each listed candidate's status as the issue shows it: the code's, then the builds'."""
    cross = _cross(window.variant, dict(window.deltas), full.fingerprint)
    relevant = sum(1 for r in full.ranked if max(CATEGORIES[c].weight for c in r.categories) >= 50)
    out: dict[str, str | None] = {}
    for item in full.ranked:
        status = assess(
            item, variant=window.variant, cross=cross, window_mode="base",
            window_size=len(window.commits), relevant_candidates=relevant,
            covers_moved=item.covers_moved,
        )  # fmt: skip
        verdict = full.verdicts.get(item.commit.sha)
        if verdict is not None:
            merge = _legacy_status if legacy else with_build_status
            status = merge(status, verdict.status, verdict.reason)
        out[item.commit.sha] = status.status
    return out


def _likely_per_issue(rows: list[tuple[Window, Result, Result]], legacy: bool) -> str:
    counts = [
        sum(v == LIKELY for v in _final_statuses(w, full, legacy).values())
        for w, full, _ in rows
        if full.ranked
    ]
    if not counts:
        return "—"
    return f"{sum(counts) / len(counts):.1f} (max {max(counts)}, {len(counts)} issues)"


def _likely_from_code(rows: list[tuple[Window, Result, Result]]) -> tuple[Pairs, Pairs]:
    """How many culprits, and how many other candidates, the code-level rules call LIKELY
    (the status an issue shows before any build is looked up)."""
    culprits = [0, 0]
    others = [0, 0]
    for window, full, _bare in rows:
        if not full.ranked:
            continue
        cross = _cross(window.variant, dict(window.deltas), full.fingerprint)
        relevant = sum(
            1 for r in full.ranked if max(CATEGORIES[c].weight for c in r.categories) >= 50
        )
        for item in full.ranked:
            status = assess(
                item,
                variant=window.variant,
                cross=cross,
                window_mode="base",
                window_size=len(window.commits),
                relevant_candidates=relevant,
                covers_moved=item.covers_moved,
            ).status
            tally = culprits if item.commit.sha in window.expected else others
            tally[0] += status == LIKELY
            tally[1] += 1
    return (culprits[0], culprits[1]), (others[0], others[1])


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("dirs", nargs="*", type=Path, help="window folders (default: all parts)")
    parser.add_argument("--why", action="store_true", help="show why each candidate ranks")
    parser.add_argument(
        "--legacy", action="store_true", help="the per-candidate lookups before issue 28"
    )
    parser.add_argument(
        "--blind4", action="store_true", help="also issue 28's blind batch 4 (judged once)"
    )
    args = parser.parse_args(argv)
    legacy = args.legacy
    show_why = args.why
    dirs: list[Path] = args.dirs
    parts = [(str(d), d) for d in dirs] or [
        ("development part (tests/data/ranking)", DATA),
        ("frozen blind part (tests/data/ranking_blind)", BLIND),
        ("frozen blind batch 2 (tests/data/ranking_blind2)", BLIND2),
        ("frozen blind batch 3 (tests/data/ranking_blind3)", BLIND3),
    ]
    if args.blind4:  # issue 28's set: judged once, at the end
        parts.append(("blind batch 4, issue 28 (tests/data/ranking_blind4)", BLIND4))
    started = time.perf_counter()
    evaluated = []
    for label, directory in parts:
        rows = [
            (w, evaluate(w, legacy=legacy), evaluate(w, use_content=False, legacy=legacy))
            for w in load_windows(directory)
        ]
        evaluated.append((label, rows))
    elapsed = time.perf_counter() - started
    for label, rows in evaluated:
        print(f"## {label}\n")
        _table(rows, show_why)
        _summary(label, rows, legacy)
        print()
    count = sum(len(rows) for _, rows in evaluated)
    print(f"{count} windows explained twice in {elapsed:.2f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
