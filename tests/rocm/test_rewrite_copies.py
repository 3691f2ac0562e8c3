"""The host rewrites' copied stretches (``RewritePlan.copies``, ``PePlan.copies``): every
output byte they name equals the input byte they name, on the real clang-built ELF and
Windows fixtures; a splice of the input's deflate stream over them inflates to exactly the
rewritten library (``wheel.deflate_splice``)."""

from __future__ import annotations

import zlib
from pathlib import Path

import pytest

from hipfx import HIP_DATA, fat_libraries
from hipfx_pe import HIP_PE, SEARCH, fat_dlls
from wheel_size.rocm.fatbin_library import read_library
from wheel_size.rocm.host_rewrite import plan_strip, write_rewritten_library
from wheel_size.rocm.pe_library import read_dll
from wheel_size.rocm.pe_rewrite import plan_dll_strip, write_dll
from wheel_size.wheel.deflate_index import index_stream, libz_available
from wheel_size.wheel.deflate_splice import Copy, splice


def check_copies(src: bytes, out: bytes, copies: list[tuple[int, int, int]]) -> None:
    end = 0
    for at, source, length in copies:
        assert at >= end and length > 0  # in order, not overlapping
        assert out[at : at + length] == src[source : source + length]
        end = at + length
    assert end <= len(out)


def check_splice(src: bytes, out: bytes, copies: list[tuple[int, int, int]]) -> None:
    if not libz_available():
        pytest.skip("libz cannot be loaded through ctypes")
    compressor = zlib.compressobj(6, zlib.DEFLATED, -15)
    stream = compressor.compress(src) + compressor.flush()
    index = index_stream(lambda at, n: stream[at : at + n], len(stream))
    pieces = [Copy(*c) for c in copies]
    chunks = splice(
        index, lambda a, n: stream[a : a + n], lambda a, n: out[a : a + n], len(out), pieces, 6
    )
    assert zlib.decompress(b"".join(chunks), -15) == out


@pytest.mark.parametrize("name", fat_libraries())
def test_elf_rewrite_copies_are_input_bytes(name: str, tmp_path: Path) -> None:
    path = HIP_DATA / name
    src = path.read_bytes()
    with path.open("rb") as fh:
        plan = plan_strip(read_library(fh, name), kernel_name=f"lib/{name}", search_paths=SEARCH)
        out_path = tmp_path / name
        with out_path.open("wb") as written:
            write_rewritten_library(plan, fh, written)
    out = out_path.read_bytes()
    copies = plan.copies()
    check_copies(src, out, copies)
    # all but the patches, the padding and the tail: nearly every kept byte
    assert sum(c[2] for c in copies) >= plan.keep_end - plan.removed - 4096
    check_splice(src, out, copies)


@pytest.mark.parametrize("name", fat_dlls())
def test_pe_rewrite_copies_are_input_bytes(name: str, tmp_path: Path) -> None:
    path = HIP_PE / name
    src = path.read_bytes()
    with path.open("rb") as fh:
        plan = plan_dll_strip(read_dll(fh, name), kernel_name=name, search_paths=SEARCH)
        out_path = tmp_path / name
        write_dll(plan, fh, path, out_path, kernel_name=name, search_paths=SEARCH)
    out = out_path.read_bytes()
    copies = plan.copies()
    check_copies(src, out, copies)
    assert copies
    check_splice(src, out, copies)
