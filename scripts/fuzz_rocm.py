#!/usr/bin/env python3
"""Coverage-guided fuzzing of the ROCm parsers with atheris (libFuzzer).

    python scripts/fuzz_rocm.py section|kpack|elf [libFuzzer options]
    e.g. python scripts/fuzz_rocm.py elf -max_total_time=300 -rss_limit_mb=1024 -timeout=10

The seed corpus (real clang fixtures, CCOB v1/v2/v3, kpack archives) is written to a
temporary directory unless a corpus directory is given.  A finding is any exception other
than InvalidBundle / InvalidElf, a time-out or exceeding the RSS limit.  Needs
``pip install atheris``; the same targets run under hypothesis in the test suite.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import tempfile
from pathlib import Path

FUZZ_TARGETS = ("section", "kpack", "elf")


def _arguments(argv: list[str] | None = None) -> tuple[str, list[str]]:
    """The target and libFuzzer's own options (passed through); ``--help`` exits here,
    before atheris (not a dependency of the project) is imported."""
    parser = argparse.ArgumentParser(
        description=(__doc__ or "").splitlines()[0],
        epilog="libFuzzer options (-max_total_time=N, ...) and a corpus folder are passed through",
        allow_abbrev=False,
    )
    parser.add_argument("target", choices=FUZZ_TARGETS)
    args, rest = parser.parse_known_args(argv)
    return args.target, rest


if __name__ == "__main__":
    _arguments()

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

import atheris  # noqa: E402

with atheris.instrument_imports():
    from wheel_size.errors import InvalidBundle, InvalidElf
    from wheel_size.rocm import fuzz_targets
    from wheel_size.rocm.ccob import Method, build_ccob
    from wheel_size.rocm.kpack import KpackWriter
    from wheel_size.rocm.offload_bundle import build_plain_bundle

HIP = REPO / "tests" / "data" / "hip"


def seeds(target: str, work: Path) -> list[bytes]:
    plain = build_plain_bundle(
        [
            ("host-x86_64-unknown-linux--", b""),
            ("hipv4-amdgcn-amd-amdhsa--gfx942", b"\x7fELF" + bytes(60) + b"k" * 50),
            ("hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+", b"\x7fELF" + bytes(60) + b"j" * 30),
        ],
        alignment=64,
    )
    if target == "section":
        return [
            plain,
            *(build_ccob(plain, version=v, method=m) for v in (1, 2, 3) for m in Method),
            build_ccob(plain, version=1, method=Method.ZSTD) + bytes(64) + plain,
        ]
    if target == "kpack":
        out = []
        for compression in ("zstd", "none"):
            path = work / f"seed_{compression}_gfx942.kpack"
            with KpackWriter(path, arch="gfx942", compression=compression) as w:
                w.add(key="lib/a.so#0", data=b"\x7fELF" + bytes(100))
                w.add(key="lib/b.so#0", data=b"code" * 20)
            out.append(path.read_bytes())
        return out
    return [(HIP / n).read_bytes() for n in ("libccob19.so", "librdc19.so", "libmulti19.so")]


def main() -> None:
    target, options = _arguments()
    if target not in fuzz_targets.TARGETS:
        sys.exit(f"usage: {sys.argv[0]} {'|'.join(fuzz_targets.TARGETS)} [libFuzzer options]")
    func = fuzz_targets.TARGETS[target]
    args = [sys.argv[0], *options]
    work = Path(tempfile.mkdtemp(prefix=f"fuzz-{target}-"))
    if not any(not a.startswith("-") for a in args[1:]):
        corpus = work / "corpus"
        corpus.mkdir()
        for i, seed in enumerate(seeds(target, work)):
            (corpus / f"seed{i}").write_bytes(seed)
        args.append(str(corpus))

    def one(data: bytes) -> None:
        with contextlib.suppress(InvalidBundle, InvalidElf):
            func(data)

    atheris.Setup(args, one)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
