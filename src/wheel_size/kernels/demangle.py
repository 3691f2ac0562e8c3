"""Itanium C++ demangling through libstdc++'s ``__cxa_demangle``.

Why this demangler (docs/diff-format.md, "Kernel names"): libstdc++'s ``__cxa_demangle`` is
libiberty's ``cp-demangle.c``, the code binutils ``c++filt`` runs, kept by the GCC
maintainers and present wherever a C++ program (or nvcc, or clang) runs; through ctypes it
costs no dependency and no process per name (the ``cxxfilt`` package wraps the same call
and was last released in 2021). A pure-Python Itanium parser (``itanium-demangler``) is a
second grammar whose text can differ from ``c++filt``'s; ``llvm-cxxfilt`` and ``c++filt``
need a process and a pipe, and the tests use ``c++filt`` as the reference.

libiberty (GCC 12's, and binutils ``c++filt`` with it) rejects some names LLVM's demangler
reads: CUTLASS kernels in libtorch_cuda.so, ~2,200 of them. :func:`demangle_many` therefore
sends the names libstdc++ rejects to ``llvm-cxxfilt`` when it is installed, all in one
process. A name that is not mangled, is longer than ``MAX_NAME`` or that both reject is
returned as it is, with ``ok`` false so callers can count it and warn once.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import shutil
import subprocess
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

__all__ = ["MAX_NAME", "Demangled", "available", "demangle", "demangle_many", "llvm_cxxfilt"]

# The LLVM demangler, newest first; WHEEL_SIZE has no say in which LLVM is installed.
_LLVM_TOOLS = ("llvm-cxxfilt", *(f"llvm-cxxfilt-{v}" for v in range(22, 13, -1)))
_LLVM_TIMEOUT = 300

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


@functools.lru_cache(maxsize=1)
def llvm_cxxfilt() -> str | None:
    """The path of an installed ``llvm-cxxfilt``, or None."""
    for tool in _LLVM_TOOLS:
        found = shutil.which(tool)
        if found:
            return found
    return None


def demangle_many(names: Iterable[str]) -> dict[str, Demangled]:
    """Each name demangled: libstdc++ first, the rest through one ``llvm-cxxfilt`` run."""
    result = {name: demangle(name) for name in names}
    retry = [
        name
        for name, shown in result.items()
        if not shown.ok and name.startswith("_Z") and len(name) <= MAX_NAME
        and name.isprintable() and name.isascii()
    ]  # fmt: skip
    tool = llvm_cxxfilt()
    if not retry or tool is None:
        return result
    try:
        proc = subprocess.run(
            [tool],
            input="\n".join(retry) + "\n",
            capture_output=True,
            text=True,
            timeout=_LLVM_TIMEOUT,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return result
    lines = proc.stdout.splitlines()
    if proc.returncode or len(lines) != len(retry):
        return result
    for name, text in zip(retry, lines, strict=True):
        if text != name:
            result[name] = Demangled(text, True)
    return result
