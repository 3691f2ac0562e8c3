#!/usr/bin/env python3
"""Coverage-guided fuzzing (atheris / libFuzzer) of the header parsers that read untrusted
bytes: the NVIDIA fatbin walker, RECORD and wheel file names.

Usage: python3 scripts/fuzz_parsers.py fatbin|record|filename [libFuzzer options, e.g.
       -atheris_runs=200000 -max_len=4096]

Only the project's own one-line errors may escape; anything else is a crash libFuzzer keeps.
Seeds: the nvcc-built fixtures under tests/data/cuda/ (fatbin target).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

FUZZ_TARGETS = ("fatbin", "record", "filename")


def _arguments(argv: list[str] | None = None) -> tuple[str, list[str]]:
    """The target and libFuzzer's own options (passed through); ``--help`` exits here,
    before atheris (not a dependency of the project) is imported."""
    parser = argparse.ArgumentParser(
        description=(__doc__ or "").splitlines()[0],
        epilog="libFuzzer options (-atheris_runs=N, -max_len=N, ...) are passed through",
        allow_abbrev=False,
    )
    parser.add_argument("target", choices=FUZZ_TARGETS)
    args, rest = parser.parse_known_args(argv)
    return args.target, rest


if __name__ == "__main__":
    _TARGET, _LIBFUZZER = _arguments()

import atheris  # type: ignore[import-untyped]  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

with atheris.instrument_imports():
    from wheel_size.cuda.fatbin import parse_fatbin_bytes
    from wheel_size.errors import WheelSizeError
    from wheel_size.wheel.filename import parse_wheel_name
    from wheel_size.wheel.record import parse_record


def _fatbin(data: bytes) -> None:
    try:
        parse_fatbin_bytes(data, source="fuzz")
    except WheelSizeError as exc:
        assert "\n" not in str(exc)


def _record(data: bytes) -> None:
    try:
        parse_record(data.decode("utf-8", "replace"))
    except WheelSizeError as exc:
        assert "\n" not in str(exc)


def _filename(data: bytes) -> None:
    try:
        parse_wheel_name(data.decode("utf-8", "replace") + ".whl")
    except WheelSizeError as exc:
        assert "\n" not in str(exc)


TARGETS = {"fatbin": _fatbin, "record": _record, "filename": _filename}


def main() -> None:
    name, options = _arguments()
    target = TARGETS[name]
    argv = [sys.argv[0], *options]
    if name == "fatbin":
        corpus = Path("/tmp/wheel-size-fuzz-fatbin")
        corpus.mkdir(exist_ok=True)
        seed = (ROOT / "tests" / "data" / "cuda" / "k_ident.fatbin").read_bytes()
        (corpus / "k_ident").write_bytes(seed)
        argv.append(str(corpus))
    atheris.Setup(argv, target)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
