"""CPython's stable ABI (PEP 384 / PEP 652) as shipped data, and the abi3 symbol check.

``data/stable_abi.json`` is derived from CPython's ``Misc/stable_abi.toml`` (through the
``abi3info`` package; see ``scripts/gen_stable_abi.py``). An abi3 extension may import only
these ``Py*`` / ``_Py*`` symbols; symbols it defines itself (``PyInit_*``, its own helpers)
are not imports and are never flagged, which avoids abi3audit's best-known false positives.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable
from importlib import resources
from typing import TypedDict

__all__ = [
    "StableSymbol",
    "abi3_baseline",
    "newer_imports",
    "non_stable_imports",
    "python_imports",
    "stable_abi",
    "stable_abi_source",
]

PyVersion = tuple[int, int]


class StableSymbol(TypedDict):
    kind: str  # function, data, ...
    added: str  # the Python that added it: "3.10"
    abi_only: bool


class _StableAbiData(TypedDict):
    source: str
    symbols: dict[str, StableSymbol]


@functools.cache
def _data() -> _StableAbiData:
    text = resources.files("wheel_size.audit").joinpath("data/stable_abi.json").read_text()
    data: _StableAbiData = json.loads(text)  # our own file (scripts/gen_stable_abi.py)
    return data


def stable_abi() -> dict[str, StableSymbol]:
    """Symbol name -> {kind, added, abi_only}."""
    return _data()["symbols"]


def stable_abi_source() -> str:
    return str(_data()["source"])


def _is_python_symbol(name: str) -> bool:
    return name.startswith(("Py", "_Py"))


def python_imports(imports: Iterable[str], defined: Iterable[str]) -> list[str]:
    """Imported CPython C-API symbols (``Py*``, ``_Py*``), sorted: a library with none is not
    a Python extension whatever its file name says (it is loaded by path, not imported)."""
    own = set(defined)
    return sorted({name for name in imports if _is_python_symbol(name) and name not in own})


def _parse(text: str) -> PyVersion:
    major, minor = text.split(".")[:2]
    return int(major), int(minor)


def newer_imports(
    imports: Iterable[str], defined: Iterable[str], baseline: PyVersion
) -> dict[str, PyVersion]:
    """Imported stable-ABI symbols added after ``baseline`` -> the version that added each:
    abi3audit's version check. The highest of them is the oldest Python the library runs
    on, whatever its ``cpXY-abi3`` tag promises."""
    table = stable_abi()
    own = set(defined)
    found = {}
    for name in imports:
        entry = table.get(name)
        if entry is None or name in own:
            continue
        added = _parse(entry["added"])
        if added > baseline:
            found[name] = added
    return dict(sorted(found.items()))


def abi3_baseline(interpreters: Iterable[str]) -> PyVersion | None:
    """The Python an abi3 wheel promises to run on, from the interpreter tags of its
    ``abi3`` tags (``cp39`` -> (3, 9)); the highest when several (as abi3audit reads them),
    None when no tag names a CPython version."""
    versions = []
    for tag in interpreters:
        digits = tag[2:] if tag.startswith("cp") else ""
        if digits.isdigit() and len(digits) >= 2:
            versions.append((int(digits[0]), int(digits[1:])))
    return max(versions) if versions else None


def non_stable_imports(imports: Iterable[str], defined: Iterable[str]) -> list[str]:
    """Imported CPython symbols that are not part of the stable ABI, sorted."""
    table = stable_abi()
    own = set(defined)
    return sorted(
        {
            name
            for name in imports
            if _is_python_symbol(name) and name not in own and name not in table
        }
    )
