"""Where in a window the size stepped, from the builds that exist (issue 28 item 2).

The window's commits, oldest first, and the builds found at some of them form a sparse size
series; the two nightlies anchor it (the night before is a build of the window's base, the
night after one of its last commit). A *step* lies between the last build at the old size
and the first build at the new one: those commits form a :class:`Bracket`. A commit
outside every bracket sits between two builds whose sizes agree within the noise band: its
:class:`Coverage` names them. Failed builds (no size) are listed, never used as a size.

This is the one place that says what a step is (issue 28 builds it once): ``investigate``
reads statuses from it, and the bisection (``wheel_size.bisect.search``) reads the same
brackets, with the same noise band (:func:`noise_band`), to choose what to build next. Pure
and import-light on purpose.

Positions: ``-1`` is the window's base (the commit the night before was built from),
``0 .. n-1`` the window's commits; a build at position ``i`` measures the tree after
commit ``i``. A bracket ``first_index .. last_index`` (inclusive) holds the commits of
which at least one made the step.
"""

from __future__ import annotations

import datetime as dt
import itertools
import statistics
from collections.abc import Sequence
from dataclasses import dataclass

from wheel_size.series import SizePoint
from wheel_size.units import MB

__all__ = [
    "BASE",
    "Bisection",
    "Bracket",
    "BracketResult",
    "BuildPoint",
    "Coverage",
    "bracket_steps",
    "night_wobble",
    "noise_band",
]

#: Below this no two builds are told apart: zips of one commit built twice differ by
#: timestamps and compression, and a log's "170.3 MB" is only ±0.05 MB.
NOISE_FLOOR_BYTES = MB // 10
#: A step smaller than this share of the night's jump does not explain the jump.
NOISE_SHARE = 0.05
#: The nights whose changes tell the history's own wobble.
WOBBLE_NIGHTS = 14

#: The position of the window's base (the night before's commit).
BASE = -1


@dataclass(frozen=True)
class BuildPoint:
    """One build at one commit: its size (``None``: failed, cancelled, or no wheel)."""

    sha: str
    size_bytes: int | None
    conclusion: str | None  # success, failure, cancelled, timed_out, ... (None: unknown)
    run_id: int | None = None
    url: str = ""
    source: str = ""  # "artifact NAME of run ID", "nightly of 2025-10-11", "log of job NAME"
    kind: str = "artifact"  # what the size measures: "artifact" (zip) or "wheel" (a log line)
    resolution_bytes: int = 1  # a log's "170.3 MB" is ±0.05 MB

    @property
    def measured(self) -> bool:
        return self.size_bytes is not None


@dataclass(frozen=True)
class Bisection:
    """A bisection with builds of one event, as the analysis reads it (kept by
    :mod:`wheel_size.bisect`, converted there): the builds it made at the window's commits
    (failed ones without a size) and the commits whose builds are still in flight. Its
    builds are more points of the same size series: :func:`bracket_steps` draws the
    brackets from them and the existing builds alike."""

    state: str  # pending, done, gave-up
    builds: tuple[BuildPoint, ...] = ()  # the builds it started, finished
    building: tuple[str, ...] = ()
    reason: str | None = None
    existing: tuple[BuildPoint, ...] = ()  # builds that existed before it, which it read

    @property
    def points(self) -> tuple[BuildPoint, ...]:
        """Every size it knows, its own builds first."""
        return (*self.builds, *self.existing)

    @property
    def pending(self) -> bool:
        return self.state == "pending"


@dataclass(frozen=True)
class Bracket:
    """Commits ``first_index .. last_index`` (inclusive) hold a step of ``delta`` bytes:
    ``before_build`` is the last build at the old size, ``after_build`` the first at the
    new size."""

    first_index: int
    last_index: int
    before_build: BuildPoint
    after_build: BuildPoint
    delta: int

    @property
    def commits(self) -> int:
        return self.last_index - self.first_index + 1

    @property
    def single(self) -> bool:
        """One commit: the builds pin the step on it."""
        return self.commits == 1


@dataclass(frozen=True)
class Coverage:
    """What the builds say about one commit: the nearest measured builds around it
    (``before`` at or before its parent, ``after`` at or after it), the size change between
    them, the bracket it lies in (index into :attr:`BracketResult.brackets`), and the
    failed builds at the commit itself."""

    index: int
    sha: str
    before: BuildPoint | None
    after: BuildPoint | None
    before_index: int | None
    after_index: int | None
    bracket: int | None
    failed: tuple[BuildPoint, ...] = ()

    @property
    def delta(self) -> int | None:
        if self.before is None or self.after is None:
            return None
        assert self.before.size_bytes is not None and self.after.size_bytes is not None
        return self.after.size_bytes - self.before.size_bytes

    @property
    def span(self) -> int | None:
        """How many commits lie between the two builds (1: the builds pin this commit)."""
        if self.before_index is None or self.after_index is None:
            return None
        return self.after_index - self.before_index

    @property
    def slack(self) -> int:
        """Half the two builds' rounding (a log's size is coarser than an artifact's)."""
        if self.before is None or self.after is None:
            return 0
        return (self.before.resolution_bytes + self.after.resolution_bytes) // 2


@dataclass(frozen=True)
class BracketResult:
    brackets: tuple[Bracket, ...]
    coverage: tuple[Coverage, ...]  # one per window commit, in window order
    failed: tuple[tuple[int, BuildPoint], ...]  # (position, build) of every failed build
    noise_bytes: int

    def of(self, sha: str) -> Coverage | None:
        return next((c for c in self.coverage if c.sha == sha), None)

    @property
    def narrowed(self) -> bool:
        """Some build inside the window told something the two nightlies did not."""
        n = len(self.coverage)
        return any(b.commits < n for b in self.brackets) or (not self.brackets and n > 0)


def night_wobble(points: Sequence[SizePoint], date: dt.date, nights: int = WOBBLE_NIGHTS) -> int:
    """The history's own night-to-night wobble before ``date``: three times the median
    absolute change over the last ``nights`` nights (0 with fewer than three changes).

    The median, not the largest change: one night just under the jump threshold (or a
    reverted step) would otherwise widen the band over every real step of its size."""
    before = [p for p in points if p.date < date][-(nights + 1) :]
    steps = [abs(b.size_bytes - a.size_bytes) for a, b in itertools.pairwise(before)]
    return 3 * int(statistics.median(steps)) if len(steps) >= 3 else 0


def noise_band(
    jump_bytes: int,
    wobble: int = 0,
    *,
    floor_bytes: float = NOISE_FLOOR_BYTES,
    share: float = NOISE_SHARE,
) -> int:
    """How far two builds may differ without a step between them: the largest of a floor
    (what one commit built twice differs by), a share of the night's jump (a smaller step
    does not explain it) and the history's wobble (:func:`night_wobble`). One rule for the
    brackets of existing builds and for the bisection's own builds, so both call the same
    change a step; nothing in it is fitted to a window."""
    return int(max(floor_bytes, share * abs(jump_bytes), wobble))


def _series(
    commits: Sequence[str],
    builds: Sequence[BuildPoint],
    base: BuildPoint | None,
    head: BuildPoint | None,
    kind: str,
    base_sha: str | None,
) -> tuple[list[tuple[int, BuildPoint]], list[tuple[int, BuildPoint]]]:
    """(measured points, failed builds) by position; one measured point per position: a
    build where there is one (builds compare with builds: the nightly's own wheel may differ
    from the build workflow's by version or flags), a nightly anchor only where there is
    none."""
    where = {sha: i for i, sha in enumerate(commits)}
    measured: dict[int, BuildPoint] = {}
    failed: list[tuple[int, BuildPoint]] = []
    for build in builds:
        position = where.get(build.sha, BASE if base_sha and build.sha == base_sha else None)
        if position is None:
            continue
        if not build.measured:
            failed.append((position, build))
        elif build.kind == kind and position not in measured:
            measured[position] = build
    if base is not None and base.measured:
        measured.setdefault(BASE, base)
    if head is not None and head.measured and commits:
        measured.setdefault(len(commits) - 1, head)
    return sorted(measured.items(), key=lambda p: p[0]), sorted(failed, key=lambda p: p[0])


def bracket_steps(
    commits: Sequence[str],
    builds: Sequence[BuildPoint],
    *,
    noise_bytes: int,
    base: BuildPoint | None = None,
    head: BuildPoint | None = None,
    kind: str = "artifact",
    base_sha: str | None = None,
    coverage: bool = True,
) -> BracketResult:
    """Brackets of every step in the window and each commit's coverage.

    ``commits``: the window's SHAs, oldest first (the base excluded). ``builds``: builds
    found at any of them or at the base, in any order (failed ones with ``size_bytes=None``).
    ``base``/``head``: the two nightlies' sizes (the night before at the base, the night
    after at the last commit), when they are comparable with the builds; ``base_sha``: the
    base's SHA (a build there counts even without the nightly's size). ``noise_bytes``:
    changes up to this are no step. Only sizes of ``kind`` are compared (a log's wheel
    size is not an artifact's zip size).

    A step is a build whose size leaves the current level by more than the noise (and the
    two builds' rounding); the level then becomes that size. Drift below the noise that
    adds up to a step is therefore found too, between the last build within the noise of
    the old level and the first outside it. ``coverage=False``: the brackets alone (the
    bisection asks for them after every build, over windows of thousands of commits).
    """
    base_sha = base_sha or (base.sha if base is not None else None)
    points, failed = _series(commits, builds, base, head, kind, base_sha)
    brackets: list[Bracket] = []
    level: tuple[int, BuildPoint] | None = None
    previous: tuple[int, BuildPoint] | None = None
    for position, point in points:
        assert point.size_bytes is not None
        if level is None or previous is None:
            level = previous = (position, point)
            continue
        level_size = level[1].size_bytes
        assert level_size is not None
        slack = (level[1].resolution_bytes + point.resolution_bytes) // 2
        if abs(point.size_bytes - level_size) > noise_bytes + slack:
            before_pos, before = previous
            assert before.size_bytes is not None
            brackets.append(
                Bracket(
                    before_pos + 1, position, before, point, point.size_bytes - before.size_bytes
                )
            )
            level = (position, point)
        previous = (position, point)

    covered: list[Coverage] = []
    for i, sha in enumerate(commits if coverage else ()):
        below: list[tuple[int | None, BuildPoint | None]] = [p for p in points if p[0] < i]
        above: list[tuple[int | None, BuildPoint | None]] = [p for p in points if p[0] >= i]
        low_pos, low = below[-1] if below else (None, None)
        high_pos, high = above[0] if above else (None, None)
        inside = next(
            (k for k, b in enumerate(brackets) if b.first_index <= i <= b.last_index), None
        )
        covered.append(
            Coverage(
                i,
                sha,
                low,
                high,
                low_pos,
                high_pos,
                inside,
                tuple(b for p, b in failed if p == i),
            )
        )
    return BracketResult(tuple(brackets), tuple(covered), tuple(failed), noise_bytes)
