"""``wheel-size dashboard``: draw the history page from report JSON files.

``track`` writes the page itself; this command is for a page built elsewhere (a workflow
step, a local preview) from ``wheel-size report --format json`` output.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from wheel_size.errors import InputError

__all__ = ["configure_parser", "run"]


def configure_parser(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "reports",
        nargs="+",
        type=Path,
        metavar="REPORT_JSON",
        help="output of `wheel-size report --format json` (an object or a list of them)",
    )
    parser.add_argument(
        "--issues",
        type=Path,
        metavar="FILE",
        help='regression issues as JSON: [{"variant", "date", "url" or "number"}]',
    )
    parser.add_argument("--repo", metavar="OWNER/NAME", help="repository, for run and issue links")
    parser.add_argument(
        "--server-url",
        default="https://github.com",
        help="web address of the GitHub server (default: %(default)s)",
    )
    parser.add_argument("--title", help="page title (default: 'Wheel sizes — OWNER/NAME')")
    parser.add_argument(
        "--y-zero",
        action="store_true",
        help="start the size axes at 0 MB (default: fit them to the sizes, to show detail)",
    )
    parser.add_argument(
        "--out", type=Path, required=True, metavar="INDEX_HTML", help="where to write the page"
    )


def _load_json(path: Path) -> Any:
    try:
        with path.open("rb") as handle:
            return json.load(handle)
    except OSError as exc:
        raise InputError(f"{path}: cannot read: {exc.strerror or exc}") from exc
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise InputError(f"{path}: not valid JSON: {exc}") from exc


def run(args: argparse.Namespace) -> int:
    from wheel_size.dashboard import (
        issue_links_from_json,
        render_dashboard,
        reports_from_json,
        write_dashboard,
    )

    reports = []
    for path in args.reports:
        reports.extend(reports_from_json(_load_json(path), source=str(path)))
    links = {}
    if args.issues is not None:
        links = issue_links_from_json(
            _load_json(args.issues),
            repository=args.repo,
            server_url=args.server_url,
            source=str(args.issues),
        )
    html = render_dashboard(
        reports,
        links,
        repository=args.repo,
        server_url=args.server_url,
        title=args.title,
        y_zero=args.y_zero,
    )
    write_dashboard(args.out, html)
    print(f"dashboard: {len(reports)} chart(s) written to {args.out}")
    return 0
