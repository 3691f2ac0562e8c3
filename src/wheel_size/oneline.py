"""Text we did not write, fit for one line of a log or an annotation."""

from __future__ import annotations

import unicodedata

__all__ = ["one_line"]

# Control (newlines, ESC), format (bidi overrides, zero-width), surrogates, line separators.
_ESCAPED = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})


def one_line(text: object, limit: int = 200) -> str:
    """``text`` with every control, format (bidi) and surrogate character escaped
    (``\\x0a``, ``\\u202e``), cut to ``limit`` characters: a file name or an exception
    message from hostile input can neither break the line nor reorder what follows it.
    (It escapes; :func:`wheel_size.render.safe_markdown.stripped_line` strips, for Markdown.)"""
    out = []
    for ch in str(text):
        if unicodedata.category(ch) in _ESCAPED:
            out.append(f"\\x{ord(ch):02x}" if ord(ch) < 0x100 else f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    line = "".join(out)
    return line if len(line) <= limit else line[: limit - 1] + "…"
