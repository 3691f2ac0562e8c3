"""Template families: a demangled function name with its template arguments, return type
and parameters left out (``at::native::reduce_kernel<…>``).

Instantiations of one template differ only inside ``<…>``; dropping what is inside (and
the signature around the name) puts every instantiation of ``reduce_kernel`` in one family,
which is the unit people fix (a dtype list, an architecture list, a build regex).
"""

from __future__ import annotations

import re

__all__ = ["ELLIPSIS", "template_family"]

ELLIPSIS = "<…>"
_ANGLE = re.compile(r"[<>]")
_BRACKET = re.compile(r"[()\[\]{}<>]")
_WORD_BREAK = re.compile(r"[()\[\]{} ]")
_QUALIFIERS = ("const", "volatile", "&&", "&")
# Operator names hold brackets that are not nesting: shield them before scanning.
_OPERATOR = re.compile(r"operator(?:<<=|>>=|<=>|<<|>>|<=|>=|->\*|->|\(\)|\[\]|<|>)")


def _shield(text: str) -> tuple[str, list[str]]:
    saved: list[str] = []

    def keep(match: re.Match[str]) -> str:
        saved.append(match.group(0))
        return f"\0{len(saved) - 1}\0"

    return _OPERATOR.sub(keep, text), saved


def _unshield(text: str, saved: list[str]) -> str:
    if not saved:
        return text
    return re.sub(r"\0(\d+)\0", lambda m: saved[int(m.group(1))], text)


def _strip_clones(text: str) -> str:
    """``text`` without trailing ``[clone .cold]`` suffixes (and the blanks before each).

    Peeled from the end: a clone's text holds no ``]``, so the earliest ``[clone `` after
    the previous ``]`` starts the last one (a regex anchored at ``$`` tries every start
    of a kilobyte name)."""
    while text.endswith("]"):
        last = len(text) - 1
        start = text.find("[clone ", text.rfind("]", 0, last) + 1, last)
        if start < 0:
            break
        text = text[:start].rstrip()
    return text


def _strip_qualifiers(text: str) -> str:
    """``text`` without trailing blank-separated ``const``/``volatile``/``&``/``&&``."""
    while True:
        for word in _QUALIFIERS:
            cut = len(text) - len(word)
            if cut > 0 and text.endswith(word) and text[cut - 1].isspace():
                text = text[:cut].rstrip()
                break
        else:
            return text


def _signature_start(text: str) -> int:
    """Index of the ``(`` opening the parameter list that ends the name, or -1."""
    # A trailing ``[clone .cold]`` or cv/ref qualifiers follow the parameter list.
    stripped = _strip_qualifiers(_strip_clones(text))
    if not stripped.endswith(")"):
        return -1
    depth = 0
    # Only brackets change the depth: visit them alone, from the end, and stop at the
    # list's ``(`` (the reversed text is searched lazily: the template arguments before
    # it, most of a kilobyte name, are never visited).
    last = len(stripped) - 1
    for match in _BRACKET.finditer(stripped[::-1]):
        ch = match.group()
        if ch in ")]}>":
            depth += 1
        else:
            depth -= 1
            if depth == 0:
                return last - match.start() if ch == "(" else -1
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


def template_family(demangled: str) -> str:
    """The family of one demangled name; a name that is not C++ is its own family."""
    text, saved = _shield(demangled)
    start = _signature_start(text)
    if start > 0:
        text = text[:start]
    name = _collapse(text).strip()
    if saved:
        name = re.sub(r"(\0\d+\0) (?=<…>)", r"\1", name)  # ``operator< <int>``
    # The return type of a template function comes first, separated by a space at depth 0.
    return _unshield(_last_word(name), saved)


def _last_word(name: str) -> str:
    depth = 0
    for match in reversed(list(_WORD_BREAK.finditer(name))):
        ch = match.group()
        if ch in ")]}":
            depth += 1
        elif ch in "([{":
            depth -= 1
        elif depth == 0:
            return name[match.end() :]
    return name
