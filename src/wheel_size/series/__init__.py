"""The size series: one model of the nightly sizes and one crossing rule for every consumer.

The history is loaded once per run and turned into a :class:`SizeSeries`; the report, the
regression issues (jumps and creep) and the dashboard all read that object, and all ask
:class:`Thresholds` whether a change is a jump. Public API::

    series = load_series(store, since, until, naming=naming)   # or SizeSeries(history, naming)
    cuda = series.variant("cuda12_8")        # date-sorted SizePoints, one per night
    cuda.jumps(start, end, Thresholds(mb=1.0))   # [Step(before, after), ...]
    cuda.creep_on(day, thresholds, CreepSettings(mb=5, days=14))
    series.night("cuda12_8", day).state      # ok / no_run / missing / failed / pending / renamed
"""

from wheel_size.series.baseline import BaselineInfo
from wheel_size.series.build import SizeSeries, VariantSeries, load_series
from wheel_size.series.detect import (
    PREVIOUS_NIGHT_DAYS,
    creep_on,
    is_jump,
    jump_on,
    jumps_between,
    lookback_days,
)
from wheel_size.series.nights import Night, NightState, variant_family
from wheel_size.series.points import SizePoint, Step, point_on, previous_point, step_on
from wheel_size.series.thresholds import MB, Baseline, CreepSettings, Thresholds

__all__ = [
    "MB",
    "PREVIOUS_NIGHT_DAYS",
    "Baseline",
    "BaselineInfo",
    "CreepSettings",
    "Night",
    "NightState",
    "SizePoint",
    "SizeSeries",
    "Step",
    "Thresholds",
    "VariantSeries",
    "creep_on",
    "is_jump",
    "jump_on",
    "jumps_between",
    "load_series",
    "lookback_days",
    "point_on",
    "previous_point",
    "step_on",
    "variant_family",
]
