"""Ranking evaluation: the rank of each window's culprit (tests/data/ranking/*.yaml), with and
without the wheel content diff, and the top-1 / top-3 rates.

usage: python benchmarks/bench_ranking.py [--why] [DIR]
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from ranking_eval import DATA, Result, evaluate, load_windows


def _cell(result: Result) -> str:
    return "—" if result.rank is None else str(result.rank)


def main(argv: list[str]) -> int:
    show_why = "--why" in argv
    dirs = [a for a in argv if not a.startswith("--")]
    windows = load_windows(Path(dirs[0]) if dirs else DATA)
    started = time.perf_counter()
    rows = []
    for window in windows:
        with_content = evaluate(window)
        without = evaluate(window, use_content=False)
        rows.append((window, with_content, without))
    elapsed = time.perf_counter() - started

    print("| Window | Night | Candidates | Rank | Rank without wheel contents |")
    print("|---|---|---:|---:|---:|")
    for window, with_content, without in rows:
        content = _cell(with_content) if window.content else "(no diff)"
        print(
            f"| `{window.path.stem}` | {window.direction}, {with_content.fingerprint.scope()} | "
            f"{len(with_content.ranked)} | {content} | {_cell(without)} |"
        )
        if show_why and with_content.culprit is not None:
            print(f"|  | why: {with_content.culprit.why()} | | | |")
    groups = {
        "all windows": rows,
        "the blind batch (written after the rules)": [r for r in rows if "blind" in r[0].path.stem],
    }
    for group, members in groups.items():
        n = len(members)
        if not n:
            continue
        print(f"\n{group}:")
        for label, index in (
            ("with the wheel contents where available", 1),
            ("text and paths only", 2),
        ):
            ranks = [row[1].rank if index == 1 else row[2].rank for row in members]
            top1 = sum(r == 1 for r in ranks)
            top3 = sum(r is not None and r <= 3 for r in ranks)
            mrr = sum(1 / r for r in ranks if r) / n
            print(
                f"- {label}: top-1 {top1}/{n} ({100 * top1 / n:.0f} %), "
                f"top-3 {top3}/{n} ({100 * top3 / n:.0f} %), mean reciprocal rank {mrr:.2f}"
            )
    print(f"\n{len(rows)} windows ranked twice in {elapsed:.2f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
