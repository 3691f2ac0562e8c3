"""Which moving tags a release may move: ``vX.Y`` and ``vX`` (and the image's ``:X``) go to
the new version only when it is the newest of its minor and major line. A backport (1.1.5
after 1.2.0) gets ``v1.1.5`` and ``v1.1``; ``v1`` stays on 1.2.0 instead of moving backwards.

    python3 scripts/release_tags.py 1.1.5 [--tags v1.2.0 v1.1.4 ...]   # default: git tag -l

Prints ``minor=true|false`` and ``major=true|false`` (lines for ``$GITHUB_OUTPUT``).
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from collections.abc import Iterable, Sequence

_VERSION = re.compile(r"v?(\d+)\.(\d+)\.(\d+)")


def parse(text: str) -> tuple[int, int, int] | None:
    m = _VERSION.fullmatch(text.strip())
    return (int(m[1]), int(m[2]), int(m[3])) if m else None


def moves(version: str, released: Iterable[str]) -> dict[str, bool]:
    """``{"minor": …, "major": …}``: may ``vX.Y`` / ``vX`` point at ``version``?"""
    new = parse(version)
    if new is None:
        raise ValueError(f"version must be MAJOR.MINOR.PATCH, not {version!r}")
    others = [v for v in (parse(t) for t in released) if v is not None and v != new]
    minor = all(v <= new for v in others if v[:2] == new[:2])
    major = all(v <= new for v in others if v[0] == new[0])
    return {"minor": minor, "major": major}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("version")
    parser.add_argument("--tags", nargs="*", help="released tags (default: git tag -l 'v*')")
    args = parser.parse_args(argv)
    tags = args.tags
    if tags is None:
        listed = subprocess.run(
            ["git", "tag", "-l", "v*"], capture_output=True, text=True, check=True
        )
        tags = listed.stdout.split()
    try:
        decided = moves(args.version, tags)
    except ValueError as exc:
        print(f"release_tags: {exc}", file=sys.stderr)
        return 2
    for name, value in decided.items():
        print(f"{name}={'true' if value else 'false'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
