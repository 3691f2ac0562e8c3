"""The nightly action's ``installed-size`` and ``forecast`` inputs (issue 34) become the
track options directly; the forecast crosses the size-limit inputs; a bad one names the input."""

from __future__ import annotations

from pathlib import Path

import pytest

from wheel_size.action.track_inputs import track_inputs
from wheel_size.errors import InputError


def _env(tmp_path: Path, **inputs: str) -> dict[str, str]:
    env = {"GITHUB_WORKSPACE": str(tmp_path), "GITHUB_REPOSITORY": "pytorch/pytorch"}
    env.update({"INPUT_WORKFLOW": "nightly.yml", "INPUT_BRANCH": ""})
    env.update({f"INPUT_{k.upper()}": v for k, v in inputs.items()})
    env.setdefault("INPUT_HISTORY-DIR", "history")
    return env


def test_inputs_become_installed_and_forecast_options(tmp_path: Path) -> None:
    env = _env(tmp_path, **{"installed-size": "true", "forecast": "45", "ceiling-mb": "900",
                            "pypi-limit-mb": "1024"})  # fmt: skip
    track = track_inputs(env, tmp_path).nightly.track
    assert track.installed is not None
    assert track.forecast is not None and track.forecast.nights == 45
    assert track.forecast.ceiling_mb == 900.0 and track.forecast.pypi_limit_mb == 1024.0
    off = track_inputs(_env(tmp_path), tmp_path).nightly.track
    assert off.installed is None and off.forecast is None


def test_a_bad_forecast_input_is_named(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="input forecast"):
        track_inputs(_env(tmp_path, forecast="1"), tmp_path)
