"""Revert pairs: a commit and its revert in the same window change nothing together.

Many commits land and are reverted before the next nightly. Both are dropped from the
candidates (and listed, so a reader can check). A revert whose original landed before
the window stays: removing code can shrink the wheel, or grow it (a revert of a
size fix).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from wheel_size.regressions.window.commits import Commit

__all__ = ["RevertPair", "RevertTarget", "remove_revert_pairs", "revert_target"]

_SUBJECT = re.compile(r'^Revert\s+"(?P<title>.+)"\s*$')
_BODY = re.compile(r"\bThis reverts commit (?P<sha>[0-9a-fA-F]{7,40})\b")


@dataclass(frozen=True)
class RevertTarget:
    """What a revert commit says it reverts: a SHA from its body and/or a title."""

    sha: str | None
    title: str | None


@dataclass(frozen=True)
class RevertPair:
    original: Commit
    revert: Commit


def revert_target(commit: Commit) -> RevertTarget | None:
    """None unless ``commit`` is a revert (by its subject or its body)."""
    subject = _SUBJECT.match(commit.title)
    body = _BODY.search(commit.message)
    if subject is None and body is None:
        return None
    return RevertTarget(
        sha=body["sha"].lower() if body is not None else None,
        title=subject["title"].strip() if subject is not None else None,
    )


def remove_revert_pairs(commits: Sequence[Commit]) -> tuple[list[Commit], list[RevertPair]]:
    """Split chronological ``commits`` into those kept and the revert pairs removed.

    A revert is paired with the latest earlier unpaired commit it names, by SHA (any
    prefix) when its body names one, else by exact title. A re-land (a revert of a revert whose
    pair was already removed) stays, which is right: its net effect is the original change.
    """
    paired: set[int] = set()
    pairs: list[RevertPair] = []
    for index, commit in enumerate(commits):
        target = revert_target(commit)
        if target is None:
            continue
        match: int | None = None
        for earlier in range(index - 1, -1, -1):
            if earlier in paired:
                continue
            candidate = commits[earlier]
            if target.sha is not None and candidate.sha.lower().startswith(target.sha):
                match = earlier
                break
        # A SHA that matches nothing means the original is outside the window: a commit
        # with the same title in the window is a re-land, not what this reverts.
        if target.sha is None and target.title is not None:
            for earlier in range(index - 1, -1, -1):
                if earlier not in paired and commits[earlier].title == target.title:
                    match = earlier
                    break
        if match is not None:
            paired.update((match, index))
            pairs.append(RevertPair(original=commits[match], revert=commit))
    kept = [commit for index, commit in enumerate(commits) if index not in paired]
    return kept, pairs
