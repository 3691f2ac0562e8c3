"""Where to build next: the pure search of a bisection over one window's commits.

Input: the window's commits in order (index 0 is the older nightly's base, the last the
newer one's), the sizes measured so far (sha → bytes) and the commits whose builds were
given up on (``git bisect skip``). Consecutive measured commits whose sizes differ by more
than the noise band hold one step between them: a *bracket*. A bracket of one suspect is a
culprit; a larger one is split by K builds into K+1 parts of at most ⌈n/(K+1)⌉ suspects, so
a window of N commits is settled in ⌈log_{K+1} N⌉ rounds. Two steps are two brackets.
Nothing here knows GitHub, files or time.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise

__all__ = ["Bracket", "Plan", "brackets", "plan", "split_points"]


@dataclass(frozen=True)
class Bracket:
    """One step: the last measured commit at the old size (``low``) and the first at the
    new size (``high``), as indices into the window; the culprit is in ``low+1 .. high``."""

    low: int
    high: int
    delta_bytes: int

    @property
    def suspects(self) -> range:
        return range(self.low + 1, self.high + 1)


@dataclass(frozen=True)
class Plan:
    """What the measurements settle and what to build next."""

    brackets: tuple[Bracket, ...]
    culprits: tuple[Bracket, ...]  # brackets of exactly one suspect
    unsettled: tuple[Bracket, ...]  # every commit that could split them was skipped
    builds: tuple[str, ...]  # commits to build next, window order

    @property
    def done(self) -> bool:
        return not self.builds


def brackets(order: Sequence[str], sizes: Mapping[str, int], noise_bytes: int) -> list[Bracket]:
    """The steps between consecutive measured commits larger than ``noise_bytes``."""
    known = [i for i, sha in enumerate(order) if sha in sizes]
    out = []
    for low, high in pairwise(known):
        delta = sizes[order[high]] - sizes[order[low]]
        if abs(delta) > noise_bytes:
            out.append(Bracket(low, high, delta))
    return out


def split_points(low: int, high: int, k: int, usable: Collection[int]) -> list[int]:
    """Up to ``k`` indices strictly between ``low`` and ``high`` that cut the suspects
    ``low+1..high`` into parts of at most ⌈n/(k+1)⌉; an unusable index (skipped) is
    replaced by the nearest usable one not taken yet, as ``git bisect skip`` does."""
    n = high - low
    if n <= 1 or k <= 0:
        return []
    part = -(-n // (k + 1))
    ideal = [low + part * t for t in range(1, k + 1) if low + part * t < high]
    chosen: list[int] = []
    for target in ideal:
        for distance in range(n):
            hit = next(
                (
                    c
                    for c in (target - distance, target + distance)
                    if low < c < high and c in usable and c not in chosen
                ),
                None,
            )
            if hit is not None:
                chosen.append(hit)
                break
    return sorted(chosen)


def plan(
    order: Sequence[str],
    sizes: Mapping[str, int],
    skipped: Collection[str],
    *,
    k: int,
    noise_bytes: int,
) -> Plan:
    """Brackets, culprits and the next builds for the measurements so far."""
    found = brackets(order, sizes, noise_bytes)
    usable = {i for i, sha in enumerate(order) if sha not in sizes and sha not in skipped}
    culprits: list[Bracket] = []
    unsettled: list[Bracket] = []
    builds: list[str] = []
    for bracket in found:
        if bracket.high - bracket.low == 1:
            culprits.append(bracket)
            continue
        points = split_points(bracket.low, bracket.high, k, usable)
        if not points:
            unsettled.append(bracket)
        builds.extend(order[i] for i in points)
    return Plan(tuple(found), tuple(culprits), tuple(unsettled), tuple(builds))
