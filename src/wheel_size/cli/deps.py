"""``wheel-size deps WHEEL…``: the full download of installing the wheels, per platform."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

__all__ = ["configure_parser", "run"]


def configure_parser(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("wheels", nargs="+", type=Path, help="the wheels to install")
    parser.add_argument(
        "--platform",
        action="append",
        default=[],
        metavar="TAG",
        help="resolve for this platform tag (repeatable: one set each), e.g. "
        "manylinux_2_28_x86_64; default the machine's own",
    )
    parser.add_argument("--python-version", metavar="X.Y", help="e.g. 3.12")
    parser.add_argument("--implementation", metavar="cp", help="e.g. cp")
    parser.add_argument(
        "--index-url", default="https://pypi.org/simple", metavar="URL", help="a simple index"
    )
    parser.add_argument(
        "--cache",
        type=Path,
        metavar="FILE",
        help="file sizes cached by pin (JSON), kept across runs",
    )
    parser.add_argument(
        "--against",
        type=Path,
        metavar="JSON",
        help="an earlier `deps --format json`: name the dependencies whose pins moved",
    )
    parser.add_argument("--format", choices=("markdown", "json"), default="markdown")
    parser.add_argument("--output", "-o", type=Path, help="write here (default stdout)")


def _earlier(path: Path) -> dict[str, object]:
    from wheel_size.errors import InputError

    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise InputError(f"{path}: not a deps JSON file ({exc})") from None
    if not isinstance(data, dict) or not isinstance(data.get("sets"), list):
        raise InputError(f"{path}: not a deps JSON file (no 'sets' list)")
    return {str(s.get("platform")): s for s in data["sets"] if isinstance(s, dict)}


def run(args: argparse.Namespace) -> int:
    from wheel_size.deps.resolve import ResolveOptions
    from wheel_size.deps.run import (
        ResolvedSet,
        markers_evaluated_elsewhere,
        pin_changes,
        resolved_set,
    )
    from wheel_size.deps.sizes import SizeCache
    from wheel_size.fileio import atomic_write_text
    from wheel_size.render import render

    cache = SizeCache(args.cache)
    sets = [
        resolved_set(
            args.wheels,
            ResolveOptions(
                index_url=args.index_url,
                platforms=(platform,) if platform else (),
                python_version=args.python_version,
                implementation=args.implementation,
            ),
            cache,
        )
        for platform in (args.platform or [None])
    ]
    cache.save()
    earlier = _earlier(args.against) if args.against else {}
    changes = {}
    for s in sets:
        old = earlier.get(s.platform)
        if isinstance(old, dict) and not s.error and not old.get("error"):
            files = tuple(
                (str(f["name"]), str(f["version"]), str(f["filename"]), int(f["bytes"]),
                 bool(f["requested"]))
                for f in old.get("files") or [] if isinstance(f, dict)
            )  # fmt: skip
            before = ResolvedSet(s.platform, files)
            changes[s.platform] = (before.total_bytes, pin_changes(before, s))
    if args.format == "json":
        text = json.dumps({"sets": [s.to_json() for s in sets]}, indent=2) + "\n"
    else:
        text = render(
            "deps.md.j2", sets=sets, changes=changes, wheels=[w.name for w in args.wheels],
            markers_on={s.platform: markers_evaluated_elsewhere(s.platform) for s in sets},
        )  # fmt: skip
    if args.output:
        atomic_write_text(args.output, text)
    else:
        sys.stdout.write(text)
    for s in sets:
        if s.error:
            print(f"wheel-size: warning: {s.platform}: {s.error}", file=sys.stderr)
    return 0
