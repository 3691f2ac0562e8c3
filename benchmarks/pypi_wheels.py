"""A pinned list of real wheels from PyPI, downloaded at run time and checked by sha256.

Used by ``bench_deflate.py`` and ``bench_real_wheels.py``. Nothing here is committed but
the list: ``pip download`` (the ordinary client) fetches each file into a cache directory,
and a file whose sha256 is not the pinned one is refused. A pin the index pip is pointed at
does not carry raises :class:`NotOnIndex`, which a run reports as a visible skip: the pin
stays, and another index (or a later mirror) runs it.

Platform tags are the file's own: jax's ROCm 7 wheels from 0.11 on and nvidia-curand-cu12
are ``manylinux_2_27``, pyg-lib-rocm ``manylinux_2_32``, and ``pip download --platform
manylinux_2_28_x86_64`` takes no wheel of another glibc ("No matching distribution").
"""

from __future__ import annotations

import hashlib
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

__all__ = ["PINNED", "NotOnIndex", "Pinned", "fetch"]


@dataclass(frozen=True)
class Pinned:
    """One wheel file: what to ask pip for, the file it must get, and its sha256."""

    name: str
    version: str
    filename: str
    sha256: str
    platform: str
    python: str  # "3.12"
    why: str  # which check it feeds


PINNED = (
    Pinned(
        "amd-mori", "1.2.3.post1",
        "amd_mori-1.2.3.post1-cp312-cp312-manylinux_2_39_x86_64.whl",
        "062b21a9af1b8b732abf4bed523d8a736b9f19887691410c7f597ae14e40e504",
        "manylinux_2_39_x86_64", "3.12", "diff base of amd-mori 1.2.4",
    ),
    Pinned(
        "amd-mori", "1.2.4",
        "amd_mori-1.2.4-cp312-cp312-manylinux_2_39_x86_64.whl",
        "52dd1ee81e3f0485e4ddc90e99b42dba64ceb2500ee08564a7ba2f9d1a5ef98c",
        "manylinux_2_39_x86_64", "3.12", "split (host grew 5.6 % before), diff, audit",
    ),
    Pinned(
        "cupy-rocm-7-0", "14.2.0",
        "cupy_rocm_7_0-14.2.0-cp312-cp312-manylinux2014_x86_64.whl",
        "4912fcd48491adc332ebc7ed6f1d7487545ee2b9cf6fcc906b7827dbe182fe7f",
        "manylinux2014_x86_64", "3.12", "split (WHEEL says linux_x86_64), audit",
    ),
    Pinned(
        "torchao", "0.13.0",
        "torchao-0.13.0-1-cp39-abi3-manylinux_2_24_x86_64.manylinux_2_28_x86_64.whl",
        "718568b158af481fdd6220165d3e336b7789ad8900ac40a07bf2212505e84491",
        "manylinux_2_28_x86_64", "3.10", "audit vs abi3audit (3.10 symbols under cp39)",
    ),
    Pinned(
        "torchao", "0.18.0",
        "torchao-0.18.0-cp310-abi3-manylinux_2_24_x86_64.manylinux_2_28_x86_64.whl",
        "6540b148e40ba81cbd4de86392225a076a1591146e9cebb099b3b234ba9feebe",
        "manylinux_2_28_x86_64", "3.10", "audit vs abi3audit (C-API-free .cpython- name)",
    ),
    Pinned(
        "torchao", "0.10.0",
        "torchao-0.10.0-cp39-abi3-manylinux_2_24_x86_64.manylinux_2_28_x86_64.whl",
        "8d984f39246817ac43b46549759af6fa09b3bf70e00f0cff3bd48978777a10e6",
        "manylinux_2_28_x86_64", "3.10", "audit vs abi3audit",
    ),
    Pinned(
        "torchao", "0.11.0",
        "torchao-0.11.0-cp39-abi3-manylinux_2_28_x86_64.manylinux_2_24_x86_64.whl",
        "5d9804833a7ec4d98a759d4750cd0f07dbd90503e3f3f4c59c77a9b9172bf043",
        "manylinux_2_28_x86_64", "3.10", "audit vs abi3audit",
    ),
    Pinned(
        "torchao", "0.12.0",
        "torchao-0.12.0-cp39-abi3-manylinux_2_24_x86_64.manylinux_2_28_x86_64.whl",
        "326ea2800cc7d9d50f0d17742ad923e5c6d4c4dd5942558f4ed13db00bdebc7c",
        "manylinux_2_28_x86_64", "3.10", "audit vs abi3audit",
    ),
    Pinned(
        "torchao", "0.14.1",
        "torchao-0.14.1-cp310-abi3-manylinux_2_24_x86_64.manylinux_2_28_x86_64.whl",
        "50f68db5e41952e88daa383fc2f358541e617654f388f508d5c7580c3bee9447",
        "manylinux_2_28_x86_64", "3.10", "audit vs abi3audit",
    ),
    Pinned(
        "torchao", "0.15.0",
        "torchao-0.15.0-cp310-abi3-manylinux_2_24_x86_64.manylinux_2_28_x86_64.whl",
        "1cbe813201314ba6329a650a76944502f3e8ec4b1b44523f3f48676810d8d1f6",
        "manylinux_2_28_x86_64", "3.10", "audit vs abi3audit",
    ),
    Pinned(
        "torchao", "0.16.0",
        "torchao-0.16.0-cp310-abi3-manylinux_2_24_x86_64.manylinux_2_28_x86_64.whl",
        "2d6293a0c57c9dd505efb025a7189459d154965fbed000efd638cf299f9362dd",
        "manylinux_2_28_x86_64", "3.10", "audit vs abi3audit",
    ),
    Pinned(
        "torchao", "0.17.0",
        "torchao-0.17.0-cp310-abi3-manylinux_2_24_x86_64.manylinux_2_28_x86_64.whl",
        "87a418ce0ec064a821ceab83c921b501acef0ce9a6ccd1be358fcd16c3ae8c58",
        "manylinux_2_28_x86_64", "3.10", "audit vs abi3audit",
    ),
    Pinned(
        "bitsandbytes", "0.50.2",
        "bitsandbytes-0.50.2-py3-none-manylinux_2_24_x86_64.whl",
        "55348a9a4a21bfd99cf8c7b32fe67b4030ae5c2a05738e03c1747f65fa6ec283",
        "manylinux_2_24_x86_64", "3.12", "audit: per-toolkit CUDA and ROCm libraries; split",
    ),
    Pinned(
        "jax-rocm7-plugin", "0.9.2.post1",
        "jax_rocm7_plugin-0.9.2.post1-cp312-cp312-manylinux_2_28_x86_64.whl",
        "2dc6505200f5c0be3e1c12a9671da85501beecca10e22b00603d5d0cd0c9daff",
        "manylinux_2_28_x86_64", "3.12", "diff base of jax-rocm7-plugin 0.10.0",
    ),
    Pinned(
        "jax-rocm7-plugin", "0.10.0",
        "jax_rocm7_plugin-0.10.0-cp312-cp312-manylinux_2_28_x86_64.whl",
        "f00e5664a380bef3657b412e4ea3895a5a29656155074e2667e68194eabb5329",
        "manylinux_2_28_x86_64", "3.12",
        "split (CCOB v3, generic ISAs only for gfx94x/103x/11/12), diff, audit",
    ),
    Pinned(
        "jax-rocm7-pjrt", "0.9.2.post1",
        "jax_rocm7_pjrt-0.9.2.post1-py3-none-manylinux_2_28_x86_64.whl",
        "122930ac6b41992bd9b1d7074f88c948fe19295fadb314feca86831573323c41",
        "manylinux_2_28_x86_64", "3.12", "diff base of jax-rocm7-pjrt 0.10.0",
    ),
    Pinned(
        "jax-rocm7-pjrt", "0.10.0",
        "jax_rocm7_pjrt-0.10.0-py3-none-manylinux_2_28_x86_64.whl",
        "fe0a40550c60e1b9f82eebfa6243ed6a7e3de7a07369142232bf8e331de03181",
        "manylinux_2_28_x86_64", "3.12",
        "split (a 496 MB library, 41 CCOB v3 bundles; Root-Is-Purelib: true), diff, audit",
    ),
    Pinned(
        "cupy-rocm-7-0", "14.1.1",
        "cupy_rocm_7_0-14.1.1-cp312-cp312-manylinux2014_x86_64.whl",
        "bfd9cb126035f43748733c9de38732741ea0dabe38cb1212ba747f8293abce0f",
        "manylinux2014_x86_64", "3.12", "diff base of cupy-rocm-7-0 14.2.0",
    ),
    Pinned(
        "cupy-rocm-5-0", "13.3.0",
        "cupy_rocm_5_0-13.3.0-cp312-cp312-manylinux2014_x86_64.whl",
        "0a120a9fdb4560c4d140c95cc7461899cffb6fc8ed4568d90c243c14c8a0aed6",
        "manylinux2014_x86_64", "3.12", "split refused (links libamdhip64.so.5), audit",
    ),
    Pinned(
        "gafime-rocm", "0.4.7",
        "gafime_rocm-0.4.7-cp312-cp312-manylinux_2_28_x86_64.whl",
        "8443a55ed53342993a65958e56dd78998e2ef7ed24fc58e376b91c1c3f09914a",
        "manylinux_2_28_x86_64", "3.12", "split (13 targets, gfx90a-gfx1201), audit",
    ),
    Pinned(
        "onnxruntime-rocm", "1.22.2.post3",
        "onnxruntime_rocm-1.22.2.post3-cp312-cp312-manylinux_2_34_x86_64.whl",
        "ccd3b2dba26fe73687f3a29d10fcc154c73b23d5b9ecc938b8c045471743fe52",
        "manylinux_2_34_x86_64", "3.12", "split (a 490 MB library, 760 code objects), audit",
    ),
    Pinned(
        "cyllama-rocm", "0.7.0",
        "cyllama_rocm-0.7.0-cp312-abi3-manylinux_2_31_x86_64.manylinux_2_35_x86_64.whl",
        "e6ebb996d986f1add67a29300ded7781d50456c3f5311ae648f1d72a3b144b9c",
        "manylinux_2_35_x86_64", "3.12",
        "audit vs abi3audit; split refused (grafted fat library links libamdhip64.so.6)",
    ),
    Pinned(
        "xformers", "0.0.30",
        "xformers-0.0.30-cp312-cp312-manylinux_2_28_x86_64.whl",
        "357875986f50f105f445dc9a002c8450623cd4a6a469865c463285d0376fe77b",
        "manylinux_2_28_x86_64", "3.12", "diff base of xformers 0.0.31",
    ),
    Pinned(
        "xformers", "0.0.31",
        "xformers-0.0.31-cp39-abi3-manylinux_2_28_x86_64.whl",
        "50aedaea82a38d7d28631f77617d1ed1f6f37c60bdc4bf167a69cbc0e39cee76",
        "manylinux_2_28_x86_64", "3.12",
        "diff vs cuobjdump (sm_60/sm_70 dropped, FA3 library moved and rebuilt for sm_80), "
        "audit vs abi3audit (two _C.so)",
    ),
    Pinned(
        "torchvision", "0.22.0",
        "torchvision-0.22.0-cp312-cp312-manylinux_2_28_x86_64.whl",
        "ce4dc334ebd508de2c534817c9388e928bc2500cf981906ae8d6e2ca3bf4727a",
        "manylinux_2_28_x86_64", "3.12", "diff base of torchvision 0.22.1",
    ),
    Pinned(
        "torchvision", "0.22.1",
        "torchvision-0.22.1-cp312-cp312-manylinux_2_28_x86_64.whl",
        "699c2d70d33951187f6ed910ea05720b9b4aaac1dcc1135f53162ce7d42481d3",
        "manylinux_2_28_x86_64", "3.12",
        "diff (grafted libraries renamed by their hash), audit (grafted libcudart)",
    ),
    Pinned(
        "cupy-cuda12x", "13.5.1",
        "cupy_cuda12x-13.5.1-cp312-cp312-manylinux2014_x86_64.whl",
        "09cfccd917d9ce96c7c457b80172f939c92ad1dfc923b9135c86b519c77e81a6",
        "manylinux2014_x86_64", "3.12", "diff base of cupy-cuda12x 13.6.0",
    ),
    Pinned(
        "cupy-cuda12x", "13.6.0",
        "cupy_cuda12x-13.6.0-cp312-cp312-manylinux2014_x86_64.whl",
        "79b0cacb5e8b190ef409f9e03f06ac8de1b021b0c0dda47674d446f5557e0eb1",
        "manylinux2014_x86_64", "3.12",
        "diff and audit (sm_100f/sm_120f family SASS beside compute_100 PTX; 66 extensions)",
    ),
    Pinned(
        "flashinfer-cubin", "0.6.11.post3",
        "flashinfer_cubin-0.6.11.post3-py3-none-any.whl",
        "982901b391f12bb8da3657723fe8e8e5d20ea280d79b3a5c9b8ea05b4216eeb7",
        "any", "3.12", "diff base of flashinfer-cubin 0.6.12 (cubins under content-hash dirs)",
    ),
    Pinned(
        "flashinfer-cubin", "0.6.12",
        "flashinfer_cubin-0.6.12-py3-none-any.whl",
        "01de132c493bb21d5df42ebe6890966cf83b40aa970dae06b2a3c0bed85f13ec",
        "any", "3.12", "standalone cubins: diff pairing by content, --by, bloat, audit",
    ),
    Pinned(
        "bitsandbytes", "0.50.1",
        "bitsandbytes-0.50.1-py3-none-win_amd64.whl",
        "86f76e8a3278fbbfc3fa0d79d1c4e706ebc214babd57f0ea30e2da509bbdaad5",
        "win_amd64", "3.12", "diff base of bitsandbytes 0.50.2 win_amd64",
    ),
    Pinned(
        "bitsandbytes", "0.50.2",
        "bitsandbytes-0.50.2-py3-none-win_amd64.whl",
        "c697963c8fda3dcd0d7ebd9b5211ae4067feef7cd06e0350d4e816a434fe683d",
        "win_amd64", "3.12", "Windows DLLs: .hip_fat (CCOB) and .nv_fatb in diff, --by, "
        "bloat, audit; split of CCOB bundles (installs vs pip)",
    ),
    Pinned(
        "onnxruntime", "1.22.1",
        "onnxruntime-1.22.1-cp312-cp312-macosx_13_0_universal2.whl",
        "a938d11c0dc811badf78e435daa3899d9af38abee950d87f3ab7430eb5b3cf5a",
        "macosx_13_0_universal2", "3.12", "audit: macos-too-new names both slices",
    ),
    Pinned(
        "jax-rocm7-plugin", "0.11.2",
        "jax_rocm7_plugin-0.11.2-cp312-cp312-manylinux_2_27_x86_64.whl",
        "b3ddd97870f0bfc24d6481f137c0a548d53011ee974a9ac6ac1928484492ed72",
        "manylinux_2_27_x86_64", "3.12", "diff base of jax-rocm7-plugin 0.12.0",
    ),
    Pinned(
        "jax-rocm7-plugin", "0.12.0",
        "jax_rocm7_plugin-0.12.0-cp312-cp312-manylinux_2_27_x86_64.whl",
        "56ea9cb8b20b2155307da1c7f81941d6811954d8ce3431ffe8d56aa251b725de",
        "manylinux_2_27_x86_64", "3.12",
        "split of CCOB bundles (27 GPUs; [all] costlier than the fat wheel), diff, audit",
    ),
    Pinned(
        "jax-rocm7-pjrt", "0.11.2",
        "jax_rocm7_pjrt-0.11.2-py3-none-manylinux_2_27_x86_64.whl",
        "f673c6b3ffec3001e259c766ab85415926cfe12f548429f0a41c410b62b0937b",
        "manylinux_2_27_x86_64", "3.12", "diff base of jax-rocm7-pjrt 0.12.0",
    ),
    Pinned(
        "jax-rocm7-pjrt", "0.12.0",
        "jax_rocm7_pjrt-0.12.0-py3-none-manylinux_2_27_x86_64.whl",
        "4551d0714523355f2946ca1958c3f584e95661e467a641d36b726f718a1c7934",
        "manylinux_2_27_x86_64", "3.12", "split of CCOB bundles (installs vs pip), diff, audit",
    ),
    Pinned(
        "pyg-lib-rocm", "0.8.0.post2",
        "pyg_lib_rocm-0.8.0.post2-cp312-cp312-manylinux_2_32_x86_64.whl",
        "1d4d427c4f87df6481ec69cb3da0d78486a2636b0551b2b035f985faf42c69bc",
        "manylinux_2_32_x86_64", "3.12", "split of uncompressed bundles (one 83 MB library), audit",
    ),
    Pinned(
        "nvidia-curand-cu12", "10.3.9.90",
        "nvidia_curand_cu12-10.3.9.90-py3-none-manylinux_2_27_x86_64.whl",
        "b32331d4f4df5d6eefa0554c565b626c7216f87a06a4f56fab27c3b68a830ec9",
        "manylinux_2_27_x86_64", "3.12", "diff base of nvidia-curand-cu12 10.3.10.19",
    ),
    Pinned(
        "nvidia-curand-cu12", "10.3.10.19",
        "nvidia_curand_cu12-10.3.10.19-py3-none-manylinux_2_27_x86_64.whl",
        "49b274db4780d421bd2ccd362e1415c13887c53c214f0d4b761752b8f9f6aa1e",
        "manylinux_2_27_x86_64", "3.12", "diff vs cuobjdump (one 167 MB CUDA library), audit",
    ),
)  # fmt: skip


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as stream:
        while chunk := stream.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


class NotOnIndex(Exception):
    """pip found no file for the pin on the index it is pointed at (a visible skip)."""


def fetch(pin: Pinned, cache: Path) -> Path:
    """The pinned file in ``cache``, downloaded with ``pip download`` when missing; raises
    :class:`NotOnIndex` when the index has no such file, SystemExit when pip gets another
    file or other bytes."""
    path = cache / pin.filename
    if not path.exists():
        cache.mkdir(parents=True, exist_ok=True)
        got = subprocess.run(
            [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
             "--platform", pin.platform, "--python-version", pin.python, "--dest", str(cache),
             "--disable-pip-version-check", "--quiet", f"{pin.name}=={pin.version}"],
            capture_output=True, text=True, check=False,
        )  # fmt: skip
        if got.returncode and "No matching distribution" in got.stderr:
            raise NotOnIndex(
                f"{pin.name} {pin.version} ({pin.platform}, Python {pin.python}): not on this index"
            )
        if got.returncode:
            raise SystemExit(f"{pin.name} {pin.version}: pip download failed: {got.stderr[-300:]}")
    if not path.exists():
        raise SystemExit(f"{pin.name} {pin.version}: pip did not download {pin.filename}")
    if _sha256(path) != pin.sha256:
        raise SystemExit(f"{path}: sha256 is not the pinned {pin.sha256}")
    return path
