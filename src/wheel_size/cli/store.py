"""``wheel-size store FILE…``: ingest record files from parallel collect jobs in one writer."""

from __future__ import annotations

import argparse

from wheel_size.cli.options import add_store_options

__all__ = ["configure_parser", "run"]


def configure_parser(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("records", nargs="+", metavar="FILE", help="files from `collect --out`")
    add_store_options(parser)
    parser.add_argument("--repo", metavar="OWNER/NAME", help="repository of the data branch")


def run(args: argparse.Namespace) -> int:
    import os
    import sys
    from pathlib import Path

    from wheel_size.cli.options import open_store_from_args
    from wheel_size.history import read_bundle

    runs = []
    for name in args.records:  # read everything first: one bad file stores nothing
        runs += read_bundle(Path(name))
    with open_store_from_args(
        args, repository=args.repo, token=os.environ.get("GITHUB_TOKEN")
    ) as store:
        result = store.write_runs(runs)
        where = store.description
    print(
        f"wheel-size: {len(runs)} run(s) from {len(args.records)} file(s): "
        f"{len(result.changed)} file(s) written, {result.unchanged} already stored, in {where}",
        file=sys.stderr,
    )
    return 0
