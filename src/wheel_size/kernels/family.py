"""Template families: a demangled function name with its template arguments, return type
and parameters left out (``at::native::reduce_kernel<…>``).

Instantiations of one template differ only inside ``<…>``; dropping what is inside (and
the signature around the name) puts every instantiation of ``reduce_kernel`` in one family,
which is the unit people fix (a dtype list, an architecture list, a build regex).
"""

from __future__ import annotations

import re

__all__ = ["ELLIPSIS", "family"]

ELLIPSIS = "<…>"
_ANGLE = re.compile(r"[<>]")
# Operator names hold brackets that are not nesting: shield them before scanning.
_OPERATOR = re.compile(r"operator(?:<<=|>>=|<=>|<<|>>|<=|>=|->\*|->|\(\)|\[\]|<|>)")


def _shield(text: str) -> tuple[str, list[str]]:
    saved: list[str] = []

    def keep(match: re.Match[str]) -> str:
        saved.append(match.group(0))
        return f"\0{len(saved) - 1}\0"

    return _OPERATOR.sub(keep, text), saved


def _unshield(text: str, saved: list[str]) -> str:
    return re.sub(r"\0(\d+)\0", lambda m: saved[int(m.group(1))], text)


def _signature_start(text: str) -> int:
    """Index of the ``(`` opening the parameter list that ends the name, or -1."""
    end = len(text)
    # A trailing ``[clone .cold]`` or cv/ref qualifiers follow the parameter list.
    stripped = re.sub(r"(?:\s*\[clone [^\]]*\])+$", "", text)
    stripped = re.sub(r"(?:\s+(?:const|volatile|&&|&))+$", "", stripped)
    end = len(stripped)
    if not stripped.endswith(")"):
        return -1
    depth = 0
    for i in range(end - 1, -1, -1):
        ch = stripped[i]
        if ch in ")]}>":
            depth += 1
        elif ch in "([{<":
            depth -= 1
            if depth == 0:
                return i if ch == "(" else -1
    return -1


def _collapse(text: str) -> str:
    """Every outermost ``<…>`` replaced by :data:`ELLIPSIS` (only the brackets are visited:
    real kernel names run to kilobytes)."""
    if "<" not in text:
        return text
    out: list[str] = []
    depth = 0
    kept = 0
    for match in _ANGLE.finditer(text):
        at = match.start()
        if match.group() == "<":
            if not depth:
                out.append(text[kept:at])
            depth += 1
        elif depth:
            depth -= 1
            if not depth:
                out.append(ELLIPSIS)
                kept = at + 1
    if not depth:
        out.append(text[kept:])
    return "".join(out)


def family(demangled: str) -> str:
    """The family of one demangled name; a name that is not C++ is its own family."""
    text, saved = _shield(demangled)
    start = _signature_start(text)
    if start > 0:
        text = text[:start]
    name = _collapse(text).strip()
    name = re.sub(r"(\0\d+\0) (?=<…>)", r"\1", name)  # ``operator< <int>``
    # The return type of a template function comes first, separated by a space at depth 0.
    return _unshield(_last_word(name), saved)


def _last_word(name: str) -> str:
    depth = 0
    for i in range(len(name) - 1, -1, -1):
        ch = name[i]
        if ch in ")]}":
            depth += 1
        elif ch in "([{":
            depth -= 1
        elif ch == " " and depth == 0:
            return name[i + 1 :]
    return name
