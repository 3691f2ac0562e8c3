"""The ranking evaluation set (tests/data/ranking/*.yaml): load a window, rank it the way
``investigate`` does (revert pairs out, night fingerprint, content facts), find the culprit."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from wheel_size.regressions.commits import Commit, commit_from_api
from wheel_size.regressions.content_facts import facts_from_diff_json
from wheel_size.regressions.fingerprint import Fingerprint, fingerprint
from wheel_size.regressions.rank import Ranked, rank_commits
from wheel_size.regressions.reverts import remove_revert_pairs

DATA = Path(__file__).resolve().parent / "data" / "ranking"


@dataclass
class Window:
    name: str
    path: Path
    direction: str
    variant: str
    deltas: dict[str, float | None]
    commits: list[Commit]
    expected: str
    content: dict[str, Any] | None


@dataclass
class Result:
    window: Window
    ranked: list[Ranked]
    fingerprint: Fingerprint
    rank: int | None  # None: the culprit was removed (as half of a revert pair)

    @property
    def culprit(self) -> Ranked | None:
        return next((r for r in self.ranked if r.commit.sha == self.window.expected), None)


def _api_commit(entry: dict[str, Any]) -> dict[str, Any]:
    files = []
    for f in entry.get("files") or []:
        patch = f.get("patch")
        if f.get("submodule"):
            patch = "@@ -1 +1 @@\n-Subproject commit aaaa\n+Subproject commit bbbb"
        files.append(
            {
                "filename": f["path"],
                "status": f.get("status", "modified"),
                "additions": f.get("additions", 0),
                "deletions": f.get("deletions", 0),
                **({"patch": patch} if patch else {}),
            }
        )
    return {"sha": entry["sha"], "commit": {"message": entry["message"]}, "files": files}


def load_window(path: Path) -> Window:
    doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    return Window(
        name=doc["name"],
        path=path,
        direction=doc["direction"],
        variant=doc["variant"],
        deltas=dict(doc["deltas_mb"]),
        commits=[commit_from_api(_api_commit(c), with_files=True) for c in doc["commits"]],
        expected=doc["expected_culprit"],
        content=doc.get("content"),
    )


def load_windows(directory: Path = DATA) -> list[Window]:
    return [load_window(p) for p in sorted(directory.glob("*.yaml"))]


def evaluate(window: Window, *, use_content: bool = True) -> Result:
    kept, _pairs = remove_revert_pairs(window.commits)
    fp = fingerprint(window.variant, window.deltas)
    facts = facts_from_diff_json(window.content) if use_content else None
    ranked = rank_commits(kept, fp, facts)
    rank = next((r.rank for r in ranked if r.commit.sha == window.expected), None)
    return Result(window, ranked, fp, rank)
