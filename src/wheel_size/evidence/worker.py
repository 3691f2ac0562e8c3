"""The evidence worker: ``python -m wheel_size.evidence.worker OLD NEW RESULT``.

Runs in its own process so that a hostile artifact can cost it, not the nightly: it limits
its own address space first (``WHEEL_SIZE_EVIDENCE_MEMORY`` bytes, set by the parent), then
diffs the two downloads and writes the result (see :mod:`wheel_size.evidence.transfer`) or
the reason there is none as JSON to RESULT. A MemoryError exits with :data:`EXIT_MEMORY`.

When the wheels carry GPU code, the kernel template families are diffed after that
(:mod:`wheel_size.evidence.families`): the file-level result is written first, saying the
family diff did not finish, and written again with the families. So a family diff that
runs out of time or memory costs the issue its family lines, not its evidence.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from wheel_size.evidence.document import WorkerPayload, WorkerResult

__all__ = ["EXIT_MEMORY", "FAMILIES_PENDING", "MEMORY_ENV", "main"]

MEMORY_ENV = "WHEEL_SIZE_EVIDENCE_MEMORY"
EXIT_MEMORY = 3


def _limit_memory() -> None:
    """Cap the address space (and drop core dumps: a crash must not write gigabytes)."""
    import resource

    limit = int(os.environ.get(MEMORY_ENV) or 0)
    if limit > 0:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


#: What the first result says until the family diff has finished.
FAMILIES_PENDING = "the kernel family diff did not finish"


def _result(old: Path, new: Path) -> tuple[WorkerPayload, bool]:
    """The file-level payload, and whether the wheels carry GPU code (families to diff)."""
    from wheel_size.diff.run import diff_inputs
    from wheel_size.errors import WheelSizeError
    from wheel_size.evidence.families import has_device_code
    from wheel_size.evidence.reading import read_growth
    from wheel_size.evidence.transfer import encode_result
    from wheel_size.oneline import one_line

    try:
        report = diff_inputs(old, new)
        gpu = has_device_code(report)
        result = encode_result(report, read_growth(report.comparisons))
        result["families_note"] = FAMILIES_PENDING if gpu else None
        return {"result": result}, gpu
    except WheelSizeError as exc:
        return {"unavailable": one_line(exc, 500)}, False
    except MemoryError:
        raise
    except Exception as exc:  # the artifact broke the diff: say how, the nightly goes on
        detail = one_line(f"{type(exc).__name__}: {exc}", 300)
        return {"unavailable": f"the wheel diff failed: {detail}"}, False


def _families(old: Path, new: Path, result: WorkerResult) -> None:
    """Add the moved kernel families to ``result`` (or the reason there are none)."""
    from wheel_size.errors import WheelSizeError
    from wheel_size.evidence.families import family_diff
    from wheel_size.evidence.transfer import encode_families
    from wheel_size.oneline import one_line

    try:
        result["families"] = encode_families(family_diff(old, new))
        result["families_note"] = None
    except MemoryError:
        result["families_note"] = "the kernel family diff ran out of its memory budget"
    except WheelSizeError as exc:
        result["families_note"] = one_line(f"the kernel family diff failed: {exc}", 500)
    except Exception as exc:  # a hostile code object: the file-level evidence stands
        detail = one_line(f"{type(exc).__name__}: {exc}", 300)
        result["families_note"] = f"the kernel family diff failed: {detail}"


def _write(out: Path, payload: WorkerPayload) -> None:
    text = json.dumps(payload, ensure_ascii=True)
    tmp = out.with_name(out.name + ".part")
    tmp.write_text(text, encoding="ascii")
    tmp.replace(out)


def main(argv: list[str]) -> int:
    if len(argv) != 3:
        print("usage: python -m wheel_size.evidence.worker OLD NEW RESULT", file=sys.stderr)
        return 2
    old, new, out = Path(argv[0]), Path(argv[1]), Path(argv[2])
    try:
        _limit_memory()
        payload, gpu = _result(old, new)
        _write(out, payload)
    except MemoryError:
        return EXIT_MEMORY
    if gpu:
        try:
            _families(old, new, payload["result"])
            _write(out, payload)
        except MemoryError:
            return 0  # the first result stands: it says the family diff did not finish
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
