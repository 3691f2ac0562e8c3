"""One unit vocabulary: MB = 1,048,576 bytes, KB = 1,024, the same text in every template."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from wheel_size.render.templates import _environment
from wheel_size.units import (
    KB,
    MB,
    format_count,
    format_mb,
    format_percent,
    format_size,
    percent_change,
    to_mb,
)


def test_mb_is_the_seeds() -> None:
    assert MB == 1_048_576 == 1024 * KB
    assert to_mb(850 * MB) == 850.0
    assert to_mb(1_000_000) == 0.954  # a decimal megabyte is not our MB


@pytest.mark.parametrize(
    ("count", "signed", "text"),
    [
        (0, False, "0 B"),
        (0, True, "±0 B"),
        (512, False, "512 B"),
        (1023, True, "+1,023 B"),
        (1024, False, "1.0 KB"),
        (31_004, True, "+30.3 KB"),
        (-31_004, True, "-30.3 KB"),
        (-31_004, False, "-30.3 KB"),
        (MB - 1, False, "1,024.0 KB"),  # just under 1 MB stays KB
        (MB, False, "1.0 MB"),
        (2 * MB + 1, True, "+2.0 MB"),
        (1_249 * MB, False, "1,249.0 MB"),  # never GB: wheels are compared in MB
        (5 * 1024 * MB, False, "5,120.0 MB"),
    ],
)
def test_format_size(count: int, signed: bool, text: str) -> None:
    assert format_size(count, signed=signed) == text


@pytest.mark.parametrize(
    ("value", "kwargs", "text"),
    [
        (None, {}, "—"),
        (1234.56, {}, "1,234.6"),
        (1234.56, {"signed": True}, "+1,234.6"),
        (-29.74, {"signed": True}, "-29.7"),
        (-0.04, {"signed": True}, "±0.0"),  # a change that rounds away is no change
        (0.04, {"signed": True}, "±0.0"),
        (-0.04, {}, "0.0"),
        (4.0, {"signed": True, "digits": 2}, "+4.00"),
    ],
)
def test_format_mb(value: float | None, kwargs: dict[str, object], text: str) -> None:
    assert format_mb(value, **kwargs) == text  # type: ignore[arg-type]


def test_percent_and_counts() -> None:
    assert format_percent(12.345) == "12.3%"
    assert format_percent(-0.4, signed=True, digits=0) == "±0%"
    assert format_percent(None) == "—"
    assert percent_change(100, 246.9) == "+146.9%"
    assert percent_change(0, 5) == "new" and percent_change(0, 0) == "±0%"
    assert percent_change(200, 100) == "-50.0%"
    assert format_count(1234567) == "1,234,567"
    assert format_count(6869, signed=True) == "+6,869" and format_count(-11, signed=True) == "-11"


@given(st.integers(min_value=-(1 << 50), max_value=1 << 50))
def test_size_text_round_trips_within_its_precision(count: int) -> None:
    """Read back, the text is the number to within half of its last digit."""
    text = format_size(count, signed=True)
    sign = {"+": 1, "-": -1, "±": 0}[text[0]]
    number, unit = text[1:].split(" ")
    scale = {"B": 1, "KB": KB, "MB": MB}[unit]
    value = sign * float(number.replace(",", "")) * scale
    assert math.isclose(value, count, abs_tol=0.05 * scale + 0.5)
    assert (sign == 0) == (abs(count) < 0.05 * scale or count == 0)


def test_template_filters_use_the_same_vocabulary() -> None:
    template = (
        _environment()
        .overlay(autoescape=False)
        .from_string(
            "{{ a | mb(signed=True) }} | {{ b | in_mb }} | {{ c | size(signed=True) }} | "
            "{{ d | pct(signed=True) }} | {{ e | count }} | {{ none | in_mb }}"
        )
    )
    text = template.render(a=-0.01, b=850 * MB + MB // 2, c=31_004, d=1.25, e=12345, none=None)
    assert text == "±0.0 | 850.5 | +30.3 KB | +1.2% | 12,345 | —"
