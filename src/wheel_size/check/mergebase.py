"""Which stored night a pull request is compared with: the night whose base commit is the
nearest ancestor of the pull request's merge base; when none is usable, none ("not checked",
said plainly: issue 29 item 2), unless the newest night was asked for.

The newest nightly drifts from a pull request's base by days of other people's changes; the
night built from an ancestor of the merge base holds none of them. The nights' base commits
lie on one branch, so "is an ancestor of the merge base" is true for every night up to some
date and false after it: a binary search over the nights (newest first, then oldest, then
halves) finds the nearest one. Requests in all, the merge base's compare included (measured
over every position of the merge base on a linear history): 2 when the newest night already
is an ancestor (a recently based PR) or there is one night, 3 when the merge base is older
than every night, at most ``3 + ceil(log2(nights))`` otherwise: 8 for 30 nights, 10 for 90,
12 for a year, 13 for two. :data:`MAX_COMPARES` bounds the search. In the pull request's own
event the pull request is read once more (its base branch and head), 1 request.
Nothing is guessed: a night is chosen only when its compare said it is an ancestor, and the
distance is GitHub's count; whatever fails leaves the check without a night, with the reason.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass

from wheel_size.check.document import NightChoiceDocument
from wheel_size.history.history import History
from wheel_size.ports import GitHubFailure
from wheel_size.ports.ancestry import CommitRelation, RelatesCommits

__all__ = ["MAX_COMPARES", "NightChoice", "nearest_night", "stored_nights"]

MAX_COMPARES = 16  # ancestry compares per check, after the merge base's: 2**14 nights


@dataclass(frozen=True)
class Night:
    date: dt.date
    base_sha: str


@dataclass(frozen=True)
class NightChoice:
    """The night to compare with (``date`` None: the newest, for the reason in ``fallback``)."""

    mode: str  # "merge-base" or "newest"
    date: dt.date | None = None
    base_sha: str | None = None
    merge_base_sha: str | None = None
    commits_before: int | None = None  # commits from the night's base to the merge base
    fallback: str | None = None  # why the newest night is used instead
    requests: int = 0  # GitHub requests the choice cost (compares)

    def sentence(self, newest: dt.date | None) -> str | None:
        """What the comment says about the night compared with (None: nothing to say)."""
        if self.date is not None and self.base_sha is not None and self.merge_base_sha:
            n = self.commits_before or 0
            apart = "its merge base" if n == 0 else f"{n} commit{'s' if n != 1 else ''} before"
            return f"compared with the nightly of {self.date} (base {self.base_sha[:7]}, " + (
                "this PR's merge base itself)"
                if n == 0
                else f"{apart} this PR's merge base {self.merge_base_sha[:7]})"
            )
        if self.mode == "newest" and self.fallback is None:
            return None  # asked for: the comment's table already names the night
        if newest is None:
            return f"{self.fallback}; no nightly is stored to compare with"
        if self.mode == "merge-base":
            # Never a pass against a night that holds other people's changes (issue 29).
            return (
                f"not checked: {self.fallback}; the newest nightly, {newest}, may include other "
                "changes (compare-with newest compares with it anyway)"
            )
        return (
            f"{self.fallback}; compared with the newest, {newest}, which may include other changes"
        )

    def to_json(self, newest: dt.date | None) -> NightChoiceDocument:
        return {
            "mode": self.mode,
            "date": self.date.isoformat() if self.date else None,
            "base_sha": self.base_sha,
            "merge_base_sha": self.merge_base_sha,
            "commits_before_merge_base": self.commits_before,
            "fallback": self.fallback,
            "newest": newest.isoformat() if newest and self.date is None else None,
            "requests": self.requests,
            "text": self.sentence(newest),
        }


def stored_nights(history: History) -> list[Night]:
    """The nights that record their base commit, oldest first (one per date: the run the
    check compares with, as :func:`wheel_size.check.run.newest_base` would take it)."""
    nights = []
    for day, runs in sorted(history.by_date().items()):
        based = [r for r in runs if r.base_sha]
        if based:
            nights.append(Night(day, str(based[0].base_sha)))
    return nights


def _fallback(reason: str, merge_base: str | None, requests: int) -> NightChoice:
    return NightChoice("merge-base", merge_base_sha=merge_base, fallback=reason, requests=requests)


def nearest_night(
    compares: RelatesCommits,
    nights: Sequence[Night],
    *,
    base_ref: str,
    head_sha: str,
    max_compares: int = MAX_COMPARES,
) -> NightChoice:
    """The night whose base is the nearest ancestor of ``base_ref``…``head_sha``'s merge base."""
    requests = 0
    try:
        requests += 1
        merge_base = compares.relate(base_ref, head_sha).merge_base_sha
    except GitHubFailure as exc:
        return _fallback(f"this PR's merge base could not be found: {exc}", None, requests)
    if not merge_base:
        return _fallback("GitHub gave no merge base for this PR", None, requests)
    short = merge_base[:7]
    if not nights:
        return _fallback("no stored nightly records its base commit", merge_base, requests)
    known: dict[int, CommitRelation] = {}

    def probe(i: int) -> CommitRelation:
        nonlocal requests
        if i not in known:
            requests += 1
            known[i] = compares.relate(nights[i].base_sha, merge_base)
        return known[i]

    def chosen(i: int) -> NightChoice:
        night = nights[i]
        return NightChoice(
            "merge-base", night.date, night.base_sha, merge_base, known[i].ahead_by,
            requests=requests,
        )  # fmt: skip

    try:
        last = len(nights) - 1
        if probe(last).base_is_ancestor:
            return chosen(last)
        if not probe(0).base_is_ancestor:
            how = "comes after it" if probe(0).status == "behind" else "is not on its history"
            return _fallback(
                f"no stored nightly is an ancestor of this PR's merge base ({short}; the base of "
                f"the oldest stored, {nights[0].date}, {how})",
                merge_base,
                requests,
            )
        lo, hi = 0, last  # lo: an ancestor; hi: not
        while hi - lo > 1:
            if len(known) >= max_compares:
                return _fallback(
                    f"the nearest stored nightly before this PR's merge base ({short}) was not "
                    f"found within {max_compares} compares",
                    merge_base,
                    requests,
                )
            mid = (lo + hi) // 2
            if probe(mid).base_is_ancestor:
                lo = mid
            else:
                hi = mid
    except GitHubFailure as exc:
        return _fallback(
            f"comparing the stored nightlies with this PR's merge base ({short}) failed: {exc}",
            merge_base,
            requests,
        )
    return chosen(lo)
