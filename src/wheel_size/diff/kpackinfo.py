"""What a ``.kpack`` archive holds, as diff facts.

A split's device wheel carries its GPU's kernels in ``.kpack`` archives, not in ELF
libraries; without these facts two device wheels diffed as two opaque files. Per archive
the facts are its processor (``gfx_arch_family``) with its distinct stored kernels
(feature-qualified aliases of one kernel share its ordinal and count once), their stored
bytes and their uncompressed bytes, so the diff shows per GPU target what grew as it does
for a fat library. The archive is validated by :mod:`wheel_size.rocm.kpack`'s reader; one
that fails is one problem line and no rows.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from wheel_size.errors import WheelSizeError
from wheel_size.native import LibraryFacts
from wheel_size.native.gpu import GpuTotals
from wheel_size.rocm.kpack import MAGIC, read_kpack
from wheel_size.wheel.archive import Member, WheelSource

__all__ = ["KPACK_SECTION", "is_kpack", "kpack_facts"]

KPACK_SECTION = ".kpack"  # the "section" column of a kpack's rows


def is_kpack(source: WheelSource, member: Member) -> bool:
    """A member named ``*.kpack`` that starts with the archive's magic."""
    if not member.name.endswith(".kpack") or member.size < len(MAGIC):
        return False
    with source.open(member.name) as stream:
        return stream.read(len(MAGIC)) == MAGIC


def kpack_facts(source: WheelSource, name: str, label: str, workdir: Path) -> LibraryFacts:
    """The per-processor code-object totals of the archive ``name`` (copied to ``workdir``
    to be read by offset; removed before returning)."""
    where = f"{label}:{name}"
    facts = LibraryFacts(where)
    fd, tmp_name = tempfile.mkstemp(dir=workdir, suffix=".kpack")
    tmp = Path(tmp_name)
    try:
        with source.open(name) as src, os.fdopen(fd, "wb") as dst:
            shutil.copyfileobj(src, dst, 1 << 20)
        with read_kpack(tmp) as archive:
            kernels = {e.ordinal: e for e in archive.entries.values()}
            totals = GpuTotals(
                bytes=sum(e.size for e in kernels.values()),
                uncompressed=sum(e.original_size for e in kernels.values()),
                entries=len(kernels),
                compression=set() if archive.compression_scheme == "none" else {"zstd"},
            )
            key = ("hip", KPACK_SECTION, archive.gfx_arch_family, "code_object")
            facts.gpu[key] = totals
    except (WheelSizeError, OSError) as exc:
        facts.gpu_problems.append(f"{where}: {exc}".replace(f"{tmp}: ", ""))
    finally:
        tmp.unlink(missing_ok=True)
    return facts
