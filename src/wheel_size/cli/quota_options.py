"""``--quota-project`` and its companions: the project quota of ``audit`` and ``check``."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from wheel_size.quota.model import QuotaOptions

__all__ = ["add_quota_options", "quota_from_args"]


def add_quota_options(parser: argparse.ArgumentParser, *, release: str) -> None:
    """``release``: what the command takes for the release set being published."""
    quota = parser.add_argument_group("project quota (an index's JSON API)")
    quota.add_argument(
        "--quota-project",
        metavar="NAME",
        help=f"add the project's quota: its files on the index now, {release}, and the "
        "headroom under its limit",
    )
    quota.add_argument(
        "--quota-index", default="https://pypi.org", metavar="URL", help="default pypi.org"
    )
    quota.add_argument(
        "--quota-limit-gb",
        type=float,
        default=None,
        metavar="GB",
        help="the project's limit in GiB (default 10, PyPI's default)",
    )
    quota.add_argument(
        "--quota-timeout", type=float, default=30.0, metavar="S", help="seconds (default 30)"
    )


def quota_from_args(args: argparse.Namespace) -> QuotaOptions | None:
    from wheel_size.errors import InputError
    from wheel_size.quota.model import DEFAULT_PROJECT_LIMIT_GB, QuotaOptions

    if not args.quota_project:
        if args.quota_limit_gb is not None:
            raise InputError("--quota-limit-gb needs --quota-project")
        return None
    if not args.quota_timeout > 0:
        raise InputError("--quota-timeout must be a positive number of seconds")
    return QuotaOptions(
        project=args.quota_project,
        index_url=args.quota_index,
        limit_gb=args.quota_limit_gb or DEFAULT_PROJECT_LIMIT_GB,
        timeout=args.quota_timeout,
    )
