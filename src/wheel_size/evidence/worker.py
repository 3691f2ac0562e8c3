"""The evidence worker: ``python -m wheel_size.evidence.worker OLD NEW RESULT``.

Runs in its own process so that a hostile artifact can cost it, not the nightly: it limits
its own address space first (``WHEEL_SIZE_EVIDENCE_MEMORY`` bytes, set by the parent), then
diffs the two downloads and writes the result (see :mod:`wheel_size.evidence.transfer`) or
the reason there is none as JSON to RESULT. A MemoryError exits with :data:`EXIT_MEMORY`.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

__all__ = ["EXIT_MEMORY", "MEMORY_ENV", "main"]

MEMORY_ENV = "WHEEL_SIZE_EVIDENCE_MEMORY"
EXIT_MEMORY = 3


def _limit_memory() -> None:
    """Cap the address space (and drop core dumps: a crash must not write gigabytes)."""
    import resource

    limit = int(os.environ.get(MEMORY_ENV) or 0)
    if limit > 0:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def _result(old: Path, new: Path) -> dict[str, object]:
    from wheel_size.diff.run import diff_inputs
    from wheel_size.errors import WheelSizeError
    from wheel_size.evidence.reading import read_growth
    from wheel_size.evidence.transfer import encode_result
    from wheel_size.oneline import one_line

    try:
        report = diff_inputs(old, new)
        return {"result": encode_result(report, read_growth(report.comparisons))}
    except WheelSizeError as exc:
        return {"unavailable": one_line(exc, 500)}
    except MemoryError:
        raise
    except Exception as exc:  # the artifact broke the diff: say how, the nightly goes on
        detail = one_line(f"{type(exc).__name__}: {exc}", 300)
        return {"unavailable": f"the wheel diff failed: {detail}"}


def main(argv: list[str]) -> int:
    if len(argv) != 3:
        print("usage: python -m wheel_size.evidence.worker OLD NEW RESULT", file=sys.stderr)
        return 2
    try:
        _limit_memory()
        payload = _result(Path(argv[0]), Path(argv[1]))
        text = json.dumps(payload, ensure_ascii=True)
    except MemoryError:
        return EXIT_MEMORY
    out = Path(argv[2])
    tmp = out.with_name(out.name + ".part")
    tmp.write_text(text, encoding="ascii")
    tmp.replace(out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
