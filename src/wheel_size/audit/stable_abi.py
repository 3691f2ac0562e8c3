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
from typing import Any

__all__ = ["non_stable_imports", "stable_abi", "stable_abi_source"]


@functools.cache
def _data() -> dict[str, Any]:
    text = resources.files("wheel_size.audit").joinpath("data/stable_abi.json").read_text()
    data: dict[str, Any] = json.loads(text)
    return data


def stable_abi() -> dict[str, dict[str, Any]]:
    """Symbol name -> {kind, added, abi_only}."""
    symbols: dict[str, dict[str, Any]] = _data()["symbols"]
    return symbols


def stable_abi_source() -> str:
    return str(_data()["source"])


def _is_python_symbol(name: str) -> bool:
    return name.startswith(("Py", "_Py"))


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
