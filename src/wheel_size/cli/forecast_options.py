"""``--forecast [N]``: the trend of the last N nights and when each size limit is crossed."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from wheel_size.check.budget import Limits
    from wheel_size.report.forecast import ForecastOptions

__all__ = ["add_forecast_options", "forecast_from_args"]

DEFAULT_NIGHTS = 60


def add_forecast_options(parser: argparse.ArgumentParser, *, with_limits: bool) -> None:
    """``--forecast``; ``with_limits``: the command has no size limits of its own, so the
    ceilings the forecast crosses are given here (``report``)."""
    g = parser.add_argument_group("forecast")
    g.add_argument(
        "--forecast",
        nargs="?",
        type=int,
        const=DEFAULT_NIGHTS,
        default=None,
        metavar="NIGHTS",
        help="add a forecast: the size trend (Theil-Sen, steps removed) over the last NIGHTS "
        f"days (default {DEFAULT_NIGHTS}) and the date each size limit would be crossed",
    )
    if with_limits:
        g.add_argument("--ceiling-mb", type=float, metavar="MB", help="a size ceiling (MB)")
        g.add_argument(
            "--ceiling",
            action="append",
            metavar="VARIANT=MB",
            help="a ceiling for one variant (repeatable), e.g. cuda12_8=850",
        )
        g.add_argument("--pypi-limit-mb", type=float, metavar="MB", help="PyPI's file-size limit")


def forecast_from_args(
    args: argparse.Namespace, limits: Limits | None = None
) -> ForecastOptions | None:
    """The forecast the flags ask for, against ``limits`` (or the ceiling flags)."""
    from wheel_size.check.budget import Budget, parse_ceilings
    from wheel_size.errors import InputError
    from wheel_size.report.forecast import ForecastOptions

    if args.forecast is None:
        return None
    if args.forecast < 2:
        raise InputError("--forecast needs at least 2 nights")
    if limits is not None:
        budget = limits.budget
    else:
        budget = Budget(
            growth_mb=None,
            ceiling_mb=getattr(args, "ceiling_mb", None),
            ceilings=parse_ceilings(getattr(args, "ceiling", None)),
            pypi_limit_mb=getattr(args, "pypi_limit_mb", None),
        )
    return ForecastOptions(
        nights=args.forecast,
        min_nights=min(14, args.forecast),
        ceilings=dict(budget.ceilings),
        ceiling_mb=budget.ceiling_mb,
        pypi_limit_mb=budget.pypi_limit_mb,
    )
