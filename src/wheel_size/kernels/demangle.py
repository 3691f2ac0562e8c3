"""Itanium C++ demangling through libstdc++'s ``__cxa_demangle``.

Why this demangler (docs/diff-format.md, "Kernel names"): libstdc++'s ``__cxa_demangle`` is
libiberty's ``cp-demangle.c``, the code binutils ``c++filt`` runs, kept by the GCC
maintainers and present wherever a C++ program (or nvcc, or clang) runs; through ctypes it
costs no dependency and no process per name (the ``cxxfilt`` package wraps the same call
and was last released in 2021). A pure-Python Itanium parser (``itanium-demangler``) is a
second grammar whose text can differ from ``c++filt``'s; ``llvm-cxxfilt`` and ``c++filt``
need a process and a pipe, and the tests use ``c++filt`` as the reference.

A name that is not mangled, is longer than ``MAX_NAME`` or that the demangler rejects is
returned as it is, with ``ok`` false so callers can count it and warn once.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
from dataclasses import dataclass
from typing import Any

__all__ = ["MAX_NAME", "Demangled", "available", "demangle"]

# Nested template arguments make names long, and libiberty recurses on them: a name past
# this many bytes is shown mangled rather than handed to a recursive parser.
MAX_NAME = 1 << 14


@dataclass(frozen=True)
class Demangled:
    text: str
    ok: bool  # False: ``text`` is the name as found (not mangled, or rejected)


def _load() -> tuple[Any, Any] | None:
    for candidate in (ctypes.util.find_library("stdc++"), "libstdc++.so.6"):
        if not candidate:
            continue
        try:
            lib = ctypes.CDLL(candidate)
            libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        except OSError:
            continue
        func = lib.__cxa_demangle
        func.restype = ctypes.c_void_p
        func.argtypes = [
            ctypes.c_char_p,
            ctypes.c_void_p,
            ctypes.c_void_p,
            ctypes.POINTER(ctypes.c_int),
        ]
        free = libc.free
        free.argtypes = [ctypes.c_void_p]
        free.restype = None
        return func, free
    return None


_FUNCS = _load()


def available() -> bool:
    """Whether libstdc++ could be loaded (if not, every name is shown mangled)."""
    return _FUNCS is not None


@functools.lru_cache(maxsize=1 << 16)
def demangle(name: str) -> Demangled:
    """``name`` demangled as ``c++filt`` would print it."""
    if _FUNCS is None or not name.startswith("_Z") or len(name) > MAX_NAME or "\0" in name:
        return Demangled(name, not name.startswith("_Z"))
    func, free = _FUNCS
    status = ctypes.c_int(0)
    pointer = func(name.encode("utf-8", "surrogateescape"), None, None, ctypes.byref(status))
    if not pointer or status.value != 0:
        return Demangled(name, False)
    try:
        text = ctypes.string_at(pointer).decode("utf-8", "replace")
    finally:
        free(pointer)
    return Demangled(text, True)
