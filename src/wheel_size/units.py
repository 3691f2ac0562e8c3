"""One unit vocabulary for every report, issue, comment, step summary and JSON document.

``MB`` is 1,048,576 bytes and ``KB`` 1,024 bytes, as in the seed procedure (and in PyTorch's
own size checks); ``docs/units.md`` says so for readers.  Sizes are kept in bytes and turned
into text only here (or by the template filters built on these functions), so a number
means the same in the issue, the report and the dashboard:

- :func:`format_mb`: a value already in MB, ``1,234.5`` (templates add " MB");
- :func:`in_mb`: bytes shown in MB, ``1,234.5`` (callers add " MB");
- :func:`format_size`: bytes at the scale that keeps them readable, ``512 B``, ``30.3 KB``,
  ``2.0 MB``, ``1,249.0 MB`` (never GB: wheel sizes are compared in MB everywhere);
- :func:`format_percent` and :func:`percent_change`: ``+1.2%``;
- :func:`format_count`: ``1,234`` / ``+1,234``.

Signed values carry ``+`` or ``-``; a change that is zero (or rounds to zero at the digits
shown) reads ``±0``, never ``+0.0`` or ``-0.0``.  JSON carries bytes (integers) and MB
numbers from :func:`to_mb`, never these strings.
"""

from __future__ import annotations

__all__ = [
    "KB",
    "MB",
    "format_count",
    "format_mb",
    "format_percent",
    "format_size",
    "in_mb",
    "percent_change",
    "to_mb",
]

KB = 1_024
MB = 1_048_576  # the seed's MB; never 10**6

_MISSING = "—"


def to_mb(size_bytes: int | float, digits: int = 3) -> float:
    """Bytes as an MB number for JSON (rounded to ``digits``)."""
    return round(size_bytes / MB, digits)


def _signed(text: str, value: float, signed: bool) -> str:
    if not signed:
        return text
    if value == 0:
        return "±" + text
    return ("+" if value > 0 else "-") + text


def format_mb(value: float | None, *, signed: bool = False, digits: int = 1) -> str:
    """A value in MB with thousands separators: ``1,234.5``; None is ``—``."""
    if value is None:
        return _MISSING
    value = float(value)  # fails loudly on something that is not a number
    if round(value, digits) == 0:
        value = 0.0
    return _signed(f"{abs(value) if signed else value:,.{digits}f}", value, signed)


def in_mb(size_bytes: int | float | None, *, signed: bool = False, digits: int = 1) -> str:
    """Bytes shown in MB: ``1,234.5`` (``+0.25`` signed, ``digits=2``); None is ``—``."""
    return format_mb(None if size_bytes is None else size_bytes / MB, signed=signed, digits=digits)


def format_size(count: int | float, *, signed: bool = False) -> str:
    """Bytes in B below 1 KB, KB below 1 MB, MB above (one decimal): ``30.3 KB``."""
    size = abs(count)
    shown: float
    if size < KB:
        text, shown = f"{size:,.0f} B", round(size)
    elif size < MB:
        text, shown = f"{size / KB:,.1f} KB", round(size / KB, 1)
    else:
        text, shown = f"{size / MB:,.1f} MB", round(size / MB, 1)
    if not signed:
        return text if count >= 0 else "-" + text
    return _signed(text, count if shown else 0, signed)


def format_percent(value: float | None, *, signed: bool = False, digits: int = 1) -> str:
    """A percentage: ``12.5%`` (``+12.5%`` signed); None is ``—``."""
    if value is None:
        return _MISSING
    return format_mb(value, signed=signed, digits=digits) + "%"


def percent_change(old: int | float, new: int | float, *, digits: int = 1) -> str:
    """``new`` against ``old`` as a signed percentage; ``new`` when there was nothing."""
    if not old:
        return "new" if new else "±0%"
    return format_percent(100 * (new - old) / old, signed=True, digits=digits)


def format_count(count: int, *, signed: bool = False) -> str:
    """An integer with thousands separators: ``1,234`` (``+1,234`` signed)."""
    return _signed(f"{abs(count) if signed else count:,}", count, signed)
