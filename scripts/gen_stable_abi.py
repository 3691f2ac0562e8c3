#!/usr/bin/env python3
"""Regenerate src/wheel_size/audit/data/stable_abi.json, the list of stable-ABI symbols.

Source: the ``abi3info`` package on PyPI (MIT licence, by William Woodruff), whose data is
generated from CPython's ``Misc/stable_abi.toml``. We keep only the facts the audit needs:
each exported symbol's name, whether it is a function or data, the CPython version that
added it, and whether it is ABI-only.

Usage: pip download --no-deps abi3info==VERSION -d /tmp/abi3info && \\
       python3 scripts/gen_stable_abi.py /tmp/abi3info/abi3info-VERSION-py3-none-any.whl
"""

from __future__ import annotations

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


def main() -> None:
    wheel = Path(sys.argv[1])
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
    data = {
        "source": (
            f"{wheel.name} (PyPI, MIT), generated from CPython Misc/stable_abi.toml; "
            "regenerate with scripts/gen_stable_abi.py"
        ),
        "symbols": dict(sorted(symbols.items())),
    }
    # one symbol per line: small, and diffs well when CPython adds symbols
    rows = [f"{json.dumps(k)}: {json.dumps(v)}" for k, v in data["symbols"].items()]  # type: ignore[attr-defined]
    text = "{\n" + f'"source": {json.dumps(data["source"])},\n"symbols": {{\n'
    OUT.write_text(text + ",\n".join(rows) + "\n}\n}\n")
    print(f"{len(symbols)} symbols written to {OUT}")


if __name__ == "__main__":
    main()
