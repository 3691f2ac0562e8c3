"""One exception root, so the CLI and the Action have a single place that turns failures
into one clear line and a non-zero exit."""

from __future__ import annotations

__all__ = [
    "GitHubError",
    "HistoryError",
    "InputError",
    "InvalidBundle",
    "InvalidElf",
    "InvalidPe",
    "InvalidWheel",
    "OutputError",
    "WheelSizeError",
]


class WheelSizeError(Exception):
    """Base of every error this tool reports to its user.

    The message is one line that names the thing at fault (a file, a variant, a date,
    an endpoint) and the problem, because that is what lands in a CI log or an
    ``::error::`` annotation.
    """

    exit_code = 2


class InputError(WheelSizeError, ValueError):
    """Something the user gave us is wrong: a flag, a date, a path, a variant."""


class InvalidWheel(InputError):
    """A file that should be a wheel is not a usable one."""


class InvalidElf(InputError):
    """A shared library is truncated or not the ELF file it claims to be."""


class InvalidPe(InputError):
    """A Windows DLL is truncated or not the PE/COFF image it claims to be."""


class InvalidBundle(InputError):
    """A GPU fat binary (offload bundle, CCOB, NVIDIA fatbin, kpack) is corrupt."""


class GitHubError(WheelSizeError):
    """GitHub refused or failed a request we cannot do without."""


class HistoryError(WheelSizeError):
    """The stored size history cannot be read or written safely."""


class OutputError(WheelSizeError):
    """An output cannot be written: no space, read-only, no permission, or a path in the way.

    The message names the path we tried to write and the system's reason (``strerror``);
    whatever was stored there before is left as it was.
    """
