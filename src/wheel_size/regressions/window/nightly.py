"""The nightly release commit message: ``YYYY-MM-DD nightly release (BASE_SHA)``.

PyTorch's nightly branch gets one synthetic commit per night whose message names the
commit of the main branch it was built from. That base SHA, not the nightly commit
itself, is where the window of candidate commits starts and ends.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass

__all__ = ["NightlyMessage", "format_nightly_message", "parse_nightly_message"]

# Tolerant: any case, extra blanks, the SHA in (), [] or after a colon, abbreviated or full.
_NIGHTLY = re.compile(
    r"(?P<date>\d{4}-\d{2}-\d{2})\s+nightly\s+release\b[\s:]*"
    r"[(\[]?\s*(?P<sha>[0-9a-fA-F]{7,40})\b\s*[)\]]?",
    re.IGNORECASE,
)
_DATE_ONLY = re.compile(r"(?P<date>\d{4}-\d{2}-\d{2})\s+nightly\s+release\b", re.IGNORECASE)


@dataclass(frozen=True)
class NightlyMessage:
    """What a nightly commit message says; ``base_sha`` is None with ``problem`` set."""

    base_sha: str | None
    date: dt.date | None
    problem: str | None = None


def _parse_date(text: str | None) -> dt.date | None:
    if text is None:
        return None
    try:
        return dt.date.fromisoformat(text)
    except ValueError:
        return None


def parse_nightly_message(message: str | None) -> NightlyMessage:
    """Read the base SHA (lower-case) and date from a nightly commit message.

    Never raises: a message without a base SHA gives ``base_sha=None`` and a ``problem``
    that can be shown to people as is.
    """
    if not message or not message.strip():
        return NightlyMessage(None, None, "the nightly commit has no message")
    match = _NIGHTLY.search(message)
    if match is not None:
        return NightlyMessage(match["sha"].lower(), _parse_date(match["date"]))
    first_line = message.strip().splitlines()[0][:80]
    date_only = _DATE_ONLY.search(message)
    if date_only is not None:
        return NightlyMessage(
            None,
            _parse_date(date_only["date"]),
            f"nightly commit message {first_line!r} names no base SHA",
        )
    return NightlyMessage(
        None,
        None,
        f"nightly commit message {first_line!r} is not 'YYYY-MM-DD nightly release (SHA)'",
    )


def format_nightly_message(date: dt.date, base_sha: str) -> str:
    """The message PyTorch's nightly job writes (used by tests and examples)."""
    return f"{date.isoformat()} nightly release ({base_sha})"
