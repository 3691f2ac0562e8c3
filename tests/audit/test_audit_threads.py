"""The audit streams members on worker threads (issue 31: flashinfer-cubin at the speed of
``sha256sum``); what it reports must not depend on them: the same wheel facts with one job
or two, and of two corrupt members the first in the wheel is the one named."""

from __future__ import annotations

import os
import random
import zipfile
from pathlib import Path

import pytest

from cubinfx import cubin, cubin_wheel, cubins, lying_cubin
from hipfx_pe import HIP_PE
from wheel_size.audit.inspect import inspect_wheel
from wheel_size.errors import InvalidWheel


def test_one_job_or_two_give_the_same_wheel(tmp_path: Path) -> None:
    rnd = random.Random(31)
    members = {f"c/{i:03d}/{name}": cubin(name) for i, name in enumerate(sorted(cubins()))}
    members |= {f"d/blob{i}.bin": rnd.randbytes(rnd.randrange(1, 3 << 20)) for i in range(6)}
    members |= {"c/lies.cubin": lying_cubin(), "d/rocm.dll": (HIP_PE / "hip_ccob.dll").read_bytes()}
    wheel = cubin_wheel(tmp_path, "1.0", members)
    one, two = inspect_wheel(wheel, jobs=1), inspect_wheel(wheel, jobs=2)
    assert one.to_json() == two.to_json()
    assert one.content_key == two.content_key and one.problems


@pytest.mark.parametrize("jobs", [1, 2])
def test_the_first_corrupt_member_is_the_one_named(jobs: int, tmp_path: Path) -> None:
    wheel = tmp_path / "x-1.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w", zipfile.ZIP_DEFLATED) as zf:
        for i in range(600):  # 20-30 KB each: several batches, both workers busy
            zf.writestr(f"x/m{i:04d}.bin", os.urandom(20_000) if i % 3 else b"a" * 30_000)
        zf.writestr("x-1.0.dist-info/METADATA", "Metadata-Version: 2.1\nName: x\nVersion: 1.0\n")
        zf.writestr("x-1.0.dist-info/WHEEL", "Wheel-Version: 1.0\nTag: py3-none-any\n")
        zf.writestr("x-1.0.dist-info/RECORD", "")
    data = bytearray(wheel.read_bytes())
    for name in (b"x/m0400.bin", b"x/m0550.bin"):  # a byte of each member's data flipped
        data[data.index(name) + len(name) + 100] ^= 0xFF
    wheel.write_bytes(bytes(data))
    with pytest.raises(InvalidWheel) as caught:
        inspect_wheel(wheel, jobs=jobs)
    assert "'x/m0400.bin': bad CRC-32" in str(caught.value)
