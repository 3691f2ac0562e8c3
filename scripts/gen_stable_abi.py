#!/usr/bin/env python3
"""Regenerate src/wheel_size/audit/data/stable_abi.json, the list of stable-ABI symbols.

Source: CPython's ``Misc/stable_abi.toml`` itself (give its path), or the ``abi3info``
package on PyPI (MIT licence, by William Woodruff), whose data is generated from that file.
We keep only the facts the audit needs: each exported symbol's name, whether it is a
function or data, the CPython version that added it (``added``: the oldest Python an abi3
extension importing it runs on, abi3audit's version check), and whether it is ABI-only.

Usage: python3 scripts/gen_stable_abi.py path/to/cpython/Misc/stable_abi.toml
   or: pip download --no-deps abi3info==VERSION -d /tmp/abi3info && \\
       python3 scripts/gen_stable_abi.py /tmp/abi3info/abi3info-VERSION-py3-none-any.whl
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import zipfile
from pathlib import Path

OUT = (
    Path(__file__).resolve().parents[1]
    / "src"
    / "wheel_size"
    / "audit"
    / "data"
    / "stable_abi.json"
)


def from_toml(text: str) -> dict[str, dict[str, object]]:
    """The exported symbols of ``Misc/stable_abi.toml``: its ``[function.X]`` and ``[data.X]``
    items (structs, macros, constants and typedefs are not symbols a library imports)."""
    import tomllib

    items = tomllib.loads(text)
    symbols: dict[str, dict[str, object]] = {}
    for kind in ("function", "data"):
        for name, item in items.get(kind, {}).items():
            major, minor = str(item["added"]).split(".")[:2]
            symbols[name] = {
                "kind": kind,
                "added": f"{int(major)}.{int(minor)}",
                "abi_only": bool(item.get("abi_only", False)),
            }
    return symbols


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument(
        "source", type=Path, help="CPython's Misc/stable_abi.toml, or the abi3info wheel"
    )
    source = parser.parse_args().source
    if source.suffix == ".toml":
        write(from_toml(source.read_text()), f"CPython {source.name}")
        return
    wheel = source
    with tempfile.TemporaryDirectory() as tmp:
        with zipfile.ZipFile(wheel) as archive:
            archive.extractall(tmp)
        sys.path.insert(0, tmp)
        import abi3info  # type: ignore[import-not-found]

        symbols: dict[str, dict[str, object]] = {}
        for kind, table in (("function", abi3info.FUNCTIONS), ("data", abi3info.DATAS)):
            for symbol, item in table.items():
                symbols[symbol.name] = {
                    "kind": kind,
                    "added": f"{item.added.major}.{item.added.minor}",
                    "abi_only": bool(item.abi_only),
                }
    write(symbols, f"{wheel.name} (PyPI, MIT), generated from CPython Misc/stable_abi.toml")


def write(symbols: dict[str, dict[str, object]], origin: str) -> None:
    data = {
        "source": f"{origin}; regenerate with scripts/gen_stable_abi.py",
        "symbols": dict(sorted(symbols.items())),
    }
    # one symbol per line: small, and diffs well when CPython adds symbols
    rows = [f"{json.dumps(k)}: {json.dumps(v)}" for k, v in data["symbols"].items()]  # type: ignore[attr-defined]
    text = "{\n" + f'"source": {json.dumps(data["source"])},\n"symbols": {{\n'
    OUT.write_text(text + ",\n".join(rows) + "\n}\n}\n")
    print(f"{len(symbols)} symbols written to {OUT}")


if __name__ == "__main__":
    main()
