"""The one crossing rule: exact in bytes, decimals as written, a zero change never a jump."""

from __future__ import annotations

import math
from typing import Any

import pytest

from wheel_size.errors import InputError
from wheel_size.series import MB, CreepSettings, Thresholds


def test_mb_threshold_is_exact_at_the_byte() -> None:
    t = Thresholds(mb=1.0)
    assert t.crossed(MB, 800 * MB) and t.crossed(-MB, 800 * MB)
    assert not t.crossed(MB - 1, 800 * MB) and not t.crossed(-(MB - 1), 800 * MB)
    half = Thresholds(mb=0.5)
    assert half.crossed(MB // 2, 1) and not half.crossed(MB // 2 - 1, 1)


def test_decimal_thresholds_mean_the_decimal_written() -> None:
    # 1 byte of 1000 is exactly 0.1 %; the float 0.1 is a hair above 1/10.
    assert Thresholds(mb=None, pct=0.1).crossed(1, 1000)
    assert not Thresholds(mb=None, pct=0.1).crossed(1, 1001)
    # 0.1 MB = 104857.6 bytes: 104858 crosses, 104857 does not.
    assert Thresholds(mb=0.1).crossed(104_858, 1)
    assert not Thresholds(mb=0.1).crossed(104_857, 1)


def test_percent_needs_a_base() -> None:
    assert not Thresholds(mb=None, pct=1.0).crossed(MB, 0)
    assert Thresholds(mb=None, pct=1.0).crossed(MB, 100 * MB)
    assert not Thresholds(mb=None, pct=1.0).crossed(MB - 1, 100 * MB)


def test_zero_change_is_never_a_jump_and_no_rule_flags_nothing() -> None:
    assert not Thresholds(mb=0.0, pct=0.0).crossed(0, 100)
    assert Thresholds(mb=0.0).crossed(1, 100)
    assert not Thresholds(mb=None, pct=None).crossed(10**12, 1)
    assert Thresholds(None, None).describe() == "none"
    assert Thresholds(mb=1.0, pct=2.5).describe() == "±1 MB or ±2.5%"


def test_infinite_threshold_is_never_crossed() -> None:
    assert not Thresholds(mb=math.inf).crossed(10**15, 1)
    assert not Thresholds(mb=None, pct=math.inf).crossed(10**15, 1)


@pytest.mark.parametrize("bad", [{"mb": -1.0}, {"pct": -0.5}, {"mb": math.nan}, {"pct": math.nan}])
def test_bad_thresholds_are_one_line_input_errors(bad: dict[str, Any]) -> None:
    with pytest.raises(InputError, match=r"^threshold: the (MB|percent) threshold must"):
        Thresholds(**bad)


@pytest.mark.parametrize("mb,days", [(0.0, 14), (-1.0, 14), (math.nan, 14), (5.0, 1)])
def test_bad_creep_settings(mb: float, days: int) -> None:
    # nan used to pass (nan <= 0 is false) and then made every night creep.
    with pytest.raises(InputError, match=r"^creep: "):
        CreepSettings(mb=mb, days=days)


def test_creep_amount_is_exact() -> None:
    assert CreepSettings(mb=5.0).reached(5 * MB)
    assert not CreepSettings(mb=5.0).reached(5 * MB - 1)
    assert not CreepSettings(mb=math.inf).reached(10**15)
