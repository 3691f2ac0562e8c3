"""``wheel-size plan-chunks``: the matrix of a fanned-out backfill, as JSON.

The reusable workflow's first job runs this and feeds ``include`` to ``strategy.matrix``.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
from pathlib import Path

__all__ = ["configure_parser", "run"]


def configure_parser(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--from",
        dest="start",
        default="",
        metavar="YYYY-MM-DD",
        help="first night to backfill; empty means nothing to backfill (an empty matrix)",
    )
    parser.add_argument(
        "--to",
        dest="end",
        default="",
        metavar="YYYY-MM-DD",
        help="last night (default: today, UTC)",
    )
    parser.add_argument(
        "--chunk",
        default="month",
        help="'month' (default), 'week' or a number of days such as '10d'",
    )
    parser.add_argument(
        "--github-output",
        action="store_true",
        help="also append matrix=…, count=… and report-days=… (days from --from to today, "
        "0 without a range) to the file named by $GITHUB_OUTPUT",
    )


def run(args: argparse.Namespace) -> int:
    from wheel_size.dates import parse_date
    from wheel_size.errors import InputError
    from wheel_size.plan import parse_chunk_size, plan_date_chunks

    size = parse_chunk_size(args.chunk)
    chunks = []
    today = dt.datetime.now(dt.timezone.utc).date()
    report_days = 0
    if args.start:
        start = parse_date(args.start, "--from")
        end = parse_date(args.end, "--to") if args.end else today
        chunks = plan_date_chunks(start, end, size)
        # The writer's report reaches back to the first backfilled night.
        report_days = max((today - start).days + 1, (end - start).days + 1)
    elif args.end:
        raise InputError("--to given without --from")
    matrix = json.dumps({"include": [c.as_matrix_entry() for c in chunks]}, separators=(",", ":"))
    print(matrix)
    if args.github_output:
        target = os.environ.get("GITHUB_OUTPUT")
        if not target:
            raise InputError("--github-output: GITHUB_OUTPUT is not set")
        with Path(target).open("a", encoding="utf-8") as handle:
            handle.write(f"matrix={matrix}\ncount={len(chunks)}\nreport-days={report_days}\n")
    return 0
