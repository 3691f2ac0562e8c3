"""No "seed" in anything a user reads: "the seed procedure" and "the seed's Method A" are
our development notes' words, meaningless in an issue body, the README or ``--help``.

The templates hold every fixed sentence of what is rendered (issues, comments, summaries,
reports); the user documents and every command's help are read as shipped. Developer
documents (architecture, benchmarks, the red team's reliability notes, where fuzzing
"seeds" are random seeds) are not for users and are not checked."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import pytest

from conftest import REPO_ROOT
from wheel_size.cli.main import SUBCOMMANDS, build_parser

SEED = re.compile(r"\bseed", re.IGNORECASE)
DEVELOPER_DOCS = {"architecture.md", "benchmarks.md", "reliability.md"}


def _user_files() -> list[Path]:
    files = sorted((REPO_ROOT / "templates").glob("*.j2"))
    files += [REPO_ROOT / "README.md", REPO_ROOT / "examples" / "README.md"]
    docs = (REPO_ROOT / "docs").rglob("*")
    files += sorted(p for p in docs if p.suffix in (".md", ".json", ".yml"))
    files += [*sorted(REPO_ROOT.glob("*/action.yml")), REPO_ROOT / "action.yml"]
    return [p for p in files if p.name not in DEVELOPER_DOCS]


def _hits(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if SEED.search(line)]


@pytest.mark.parametrize("path", _user_files(), ids=lambda p: str(p.relative_to(REPO_ROOT)))
def test_no_seed_wording_in_user_files(path: Path) -> None:
    assert _hits(path.read_text(encoding="utf-8")) == []


@pytest.mark.parametrize("command", [None, *SUBCOMMANDS])
def test_no_seed_wording_in_help(command: str | None) -> None:
    parser = build_parser(only=command)
    if command is None:
        text = parser.format_help()
    else:
        (sub,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        text = sub.choices[command].format_help()
    assert text.strip() and _hits(text) == []


def test_the_check_catches_the_old_wording() -> None:
    assert _hits("Builds at exactly 2 candidates (the seed's Method A)") != []
    assert _hits("This automates the seed procedure") != []
