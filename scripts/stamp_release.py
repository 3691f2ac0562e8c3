#!/usr/bin/env python3
"""Point a release commit at its prebuilt image and its own tag (run by release.yml).

On main, the four ``action.yml`` files (the root, ``check/``, ``split/``, ``audit/``) build the
Dockerfile (forks and branches keep working) and the reusable workflow has no fixed ref. A
release commit instead says, in each of them::

    runs:
      image: docker://ghcr.io/OWNER/NAME:1.2.0@sha256:...

so a step starts by pulling the image (by digest: what the release pushed and checked), and
the reusable workflow's install steps get ``SELF: OWNER/NAME@v1.2.0``. Both edits are
textual, so comments and order survive.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]


ACTIONS = ("action.yml", "check/action.yml", "split/action.yml", "audit/action.yml")


def stamp_action(text: str, image: str, name: str = "action.yml") -> str:
    new, count = re.subn(r"(?m)^(  image: )(?:\.\./)?Dockerfile$", rf"\g<1>{image}", text)
    if count != 1:
        raise SystemExit(f"{name}: expected exactly one `  image: Dockerfile` line")
    return new


def stamp_workflow(text: str, self_ref: str) -> str:
    new, count = re.subn(r'(?m)^(\s+SELF: )""$', rf'\g<1>"{self_ref}"', text)
    if count == 0:
        raise SystemExit('wheel-size.yml: no `SELF: ""` line to stamp')
    return new


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--image", required=True, help="docker://ghcr.io/owner/name:1.2.0")
    parser.add_argument("--self", dest="self_ref", required=True, help="owner/name@v1.2.0")
    parser.add_argument("--root", type=Path, default=REPO_ROOT)
    args = parser.parse_args(argv)
    if not re.fullmatch(r"docker://[a-z0-9./_-]+:[\w.-]+(@sha256:[0-9a-f]{64})?", args.image):
        raise SystemExit(f"--image {args.image!r}: expected docker://REGISTRY/NAME:TAG[@DIGEST]")
    if not re.fullmatch(r"[\w.-]+/[\w.-]+@[\w.-]+", args.self_ref):
        raise SystemExit(f"--self {args.self_ref!r}: expected OWNER/NAME@TAG")
    workflow = args.root / ".github" / "workflows" / "wheel-size.yml"
    for name in ACTIONS:
        action = args.root / name
        action.write_text(stamp_action(action.read_text("utf-8"), args.image, name), "utf-8")
    stamped = stamp_workflow(workflow.read_text(encoding="utf-8"), args.self_ref)
    workflow.write_text(stamped, "utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
