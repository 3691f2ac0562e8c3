"""The last boundary: an exception we did not expect becomes one line, never a traceback.

The CLI and the Action catch our own errors (:class:`WheelSizeError`) by design; anything
else — a bug, a ``MemoryError``, a ``RecursionError`` — is turned into an
:class:`InternalError` here: ``internal error: <type>: <message> (please report)``, exit 2.
Set ``WHEEL_SIZE_DEBUG=1`` to have the traceback printed to stderr as well, for the report.
"""

from __future__ import annotations

import os
import sys
import traceback
from typing import TextIO

from wheel_size.errors import WheelSizeError
from wheel_size.oneline import one_line

__all__ = ["DEBUG_ENV", "InternalError", "internal_error"]

DEBUG_ENV = "WHEEL_SIZE_DEBUG"


class InternalError(WheelSizeError):
    """An unexpected exception, reported as one line (the original is ``__cause__``)."""


def _scrub(text: str) -> str:
    """No token in the line: the ones the GitHub client knows, and the environment's."""
    client = sys.modules.get("wheel_size.github.client")
    if client is not None:
        text = client.scrub(text)
    for name in ("GITHUB_TOKEN", "INPUT_GITHUB-TOKEN"):
        secret = os.environ.get(name, "").strip()
        if len(secret) >= 8:
            text = text.replace(secret, "***")
    return text


def internal_error(exc: BaseException, stream: TextIO | None = None) -> InternalError:
    """``exc`` as a one-line :class:`InternalError`; with ``WHEEL_SIZE_DEBUG=1`` its
    traceback goes to ``stream`` (stderr) now, while it is still at hand."""
    if isinstance(exc, InternalError):
        return exc
    if os.environ.get(DEBUG_ENV) == "1":
        traceback.print_exception(exc, file=stream or sys.stderr)
    try:
        text = _scrub(str(exc))
    except Exception:  # a __str__ that fails must not hide the error itself
        text = ""
    detail = f"{type(exc).__name__}: {text}" if text else type(exc).__name__
    error = InternalError(f"internal error: {one_line(detail, 300)} (please report)")
    error.__cause__ = exc
    return error
