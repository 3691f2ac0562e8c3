"""Where to build next: the pure search of a bisection over one window's commits.

Input: the window's commits in order (index 0 is the older nightly's base, the last the
newer one's), the sizes measured so far (sha → bytes: the builds that already existed and
those the bisection made) and the commits whose builds were given up on (``git bisect
skip``). What a step is — a *bracket* between the last build at the old size and the first
at the new one, with its noise band — is decided in one place,
:func:`wheel_size.regressions.builds.bracket.bracket_steps`; this module only chooses the
builds that split the brackets. A bracket of one suspect whose step exceeds the noise is a
culprit; a larger one is split by K builds into K+1 parts of at most ⌈n/(K+1)⌉ suspects, so
a window of N commits is settled in ⌈log_{K+1} N⌉ rounds. Two steps are two brackets.
Nothing here knows GitHub, files or time.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise

from wheel_size.regressions.builds.bracket import Bracket, BuildPoint, bracket_steps

__all__ = ["Bracket", "Plan", "brackets", "ends", "plan", "split_points", "spread_points"]


def ends(bracket: Bracket) -> tuple[int, int]:
    """The bracket as indices into the bisection's order (base first): the last commit
    measured at the old size and the first at the new one; the suspects are between."""
    return bracket.first_index, bracket.last_index + 1


@dataclass(frozen=True)
class Plan:
    """What the measurements settle and what to build next."""

    brackets: tuple[Bracket, ...]
    culprits: tuple[Bracket, ...]  # brackets of exactly one suspect, a step above the noise
    unsettled: tuple[Bracket, ...]  # every commit that could split them was skipped
    builds: tuple[str, ...]  # commits to build next, window order

    @property
    def done(self) -> bool:
        return not self.builds


def brackets(order: Sequence[str], sizes: Mapping[str, int], noise_bytes: int) -> list[Bracket]:
    """The steps among the measured commits of ``order`` (its first entry is the base), as
    :func:`~wheel_size.regressions.builds.bracket.bracket_steps` draws them."""
    if not order:
        return []
    points = [BuildPoint(sha, size, "success") for sha, size in sizes.items()]
    found = bracket_steps(
        order[1:], points, noise_bytes=noise_bytes, base_sha=order[0], coverage=False
    )
    return list(found.brackets)


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


def spread_points(known: Collection[int], last: int, k: int, usable: Collection[int]) -> list[int]:
    """Up to ``k`` indices that cut the widest stretches between ``known`` indices (the
    window's ends ``0`` and ``last`` always count as known): builds that existed before the
    bisection already cut the window, so the first round splits what they left widest."""
    marks = sorted(set(known) | {0, last})
    shares = dict.fromkeys(pairwise(marks), 0)
    for _ in range(k):  # one more cut to the stretch whose parts are still the widest
        a, b = max(shares, key=lambda s: ((s[1] - s[0]) / (shares[s] + 1), -s[0]))
        if (b - a) <= shares[(a, b)] + 1:
            break
        shares[(a, b)] += 1
    chosen: list[int] = []
    for (a, b), cuts in shares.items():
        chosen.extend(split_points(a, b, cuts, set(usable) - set(chosen)))
    return sorted(chosen)


def plan(
    order: Sequence[str],
    sizes: Mapping[str, int],
    skipped: Collection[str],
    *,
    k: int,
    noise_bytes: int,
) -> Plan:
    """Brackets, culprits and the next builds for the measurements so far. A one-commit
    bracket whose own change is within the noise (drift added up over several commits) is
    no culprit and is not split further: the builds show no single step there."""
    found = brackets(order, sizes, noise_bytes)
    usable = {i for i, sha in enumerate(order) if sha not in sizes and sha not in skipped}
    culprits: list[Bracket] = []
    unsettled: list[Bracket] = []
    builds: list[str] = []
    for bracket in found:
        low, high = ends(bracket)
        if high - low == 1:
            if abs(bracket.delta) > noise_bytes:
                culprits.append(bracket)
            continue
        points = split_points(low, high, k, usable)
        if not points:
            unsettled.append(bracket)
        builds.extend(order[i] for i in points)
    return Plan(tuple(found), tuple(culprits), tuple(unsettled), tuple(builds))
