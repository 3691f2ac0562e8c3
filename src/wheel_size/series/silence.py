"""Silence: a watched variant that stopped producing its wheel.

A night with runs of the workflow but no artifact of the variant (missing, failed, still
pending, or renamed) is a *silent night*; the nights since the variant's last size that
were all silent are its *silence*. A nightly run warns on every silent night and, once the
silence lasts ``nights`` nights (``--silence-nights``), the issue step opens one issue per
silent variant (:mod:`wheel_size.regressions.issues.silence`). Nights without any run are
not silence of the variant (the whole workflow did not run) and neither end nor count it.

A rename is named from what the nights show (``NightState.RENAMED``, one reading for the
report, the history's nights and the issue): an artifact of the same family that the last
night with our artifact lacked, or, from the jobs listing (build time on), a job of the same
family that built one.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass

from wheel_size.series.build import SizeSeries
from wheel_size.series.nights import Night, NightState

__all__ = ["DEFAULT_SILENCE_NIGHTS", "Silence", "silence_lines", "silence_of"]

# After this many silent nights in a row the issue step opens an issue (a failed CUDA
# nightly is routine: one night is a warning only).
DEFAULT_SILENCE_NIGHTS = 2
# How far back a silence is followed (a variant gone for longer is named as gone since
# at least this many days).
SILENCE_LOOKBACK_DAYS = 60


@dataclass(frozen=True)
class Silence:
    """``variant`` has had no size on ``nights`` (oldest first, each with runs)."""

    variant: str
    artifact: str
    last_seen: dt.date  # the last night with a size
    nights: tuple[Night, ...]
    renamed_to: tuple[str, ...] = ()  # artifact (or job) names of the same family instead
    # Left for the jobs that ran but did not produce the artifact (issue 34 item 6): the
    # silent-night line names them when filled; empty means not known.
    jobs_without_artifact: tuple[str, ...] = ()

    @property
    def since(self) -> dt.date:
        """The first silent night."""
        return self.nights[0].date

    @property
    def last(self) -> dt.date:
        return self.nights[-1].date

    @property
    def count(self) -> int:
        return len(self.nights)

    def run_ids(self) -> list[int]:
        """The runs of the silent nights (the latest of each night), oldest first."""
        return [n.latest.run_id for n in self.nights if n.latest is not None]


_SILENT = (NightState.MISSING, NightState.FAILED, NightState.PENDING, NightState.RENAMED)


def silence_of(series: SizeSeries, variant: str, until: dt.date) -> Silence | None:
    """``variant``'s silence up to night ``until`` (None: it had a size on the last night
    with runs, or no night with runs at all)."""
    nights: list[Night] = []
    day = until
    stop = until - dt.timedelta(days=SILENCE_LOOKBACK_DAYS)
    last_seen: dt.date | None = None
    while day > stop:
        night = series.night(variant, day)
        if night.state == NightState.OK:
            last_seen = day
            break
        if night.state in _SILENT:
            nights.append(night)
        day -= dt.timedelta(days=1)
    if not nights or last_seen is None:
        # never seen in the data read: a name that never had a wheel (a variant not built
        # yet, or a typo the variant resolution names) is not a silence
        return None
    nights.reverse()
    renamed = {name for n in nights for name in n.renamed_to}
    return Silence(
        variant=variant,
        artifact=series.variant(variant).artifact,
        last_seen=last_seen,
        nights=tuple(nights),
        renamed_to=tuple(sorted(renamed)),
    )


def silence_lines(series: SizeSeries, variants: Sequence[str], night: dt.date) -> list[str]:
    """One line per watched variant without a wheel on ``night`` (the run's warnings and
    the step summary's "Silent" lines)."""
    from wheel_size.render import render

    out = []
    for variant in variants:
        silence = silence_of(series, variant, night)
        if silence is not None and silence.last == night:
            out.append(render("silence_line.txt.j2", s=silence).strip())
    return out
