"""``--installed-size``: each new artifact's installed size, for ``track`` and ``collect``."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from wheel_size.collect.installed import InstalledOptions

__all__ = ["add_installed_options", "installed_from_args"]


def add_installed_options(parser: argparse.ArgumentParser) -> None:
    g = parser.add_argument_group("installed size")
    g.add_argument(
        "--installed-size",
        action="store_true",
        help="also store each new artifact's installed size (the sum of its wheel's "
        "uncompressed member sizes), read from the wheel's central directory by ranged reads",
    )
    g.add_argument(
        "--installed-max-mb",
        type=float,
        default=None,
        metavar="MB",
        help="a wheel deflated inside its artifact is streamed (not stored) to reach its "
        "directory only up to this size (default 4096)",
    )


def installed_from_args(args: argparse.Namespace) -> InstalledOptions | None:
    from wheel_size.collect.installed import InstalledOptions
    from wheel_size.errors import InputError

    if not args.installed_size:
        if args.installed_max_mb is not None:
            raise InputError("--installed-max-mb needs --installed-size")
        return None
    if args.installed_max_mb is None:
        return InstalledOptions()
    if args.installed_max_mb < 0:
        raise InputError("--installed-max-mb must not be negative")
    return InstalledOptions(max_stream_mb=args.installed_max_mb)
