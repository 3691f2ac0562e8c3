"""Issue 20, point 1: a split never makes a member bigger than zlib would, says when the host
wheel outgrows its input and why, and checks what it copies verbatim.

amd-mori 1.2.4's host wheel came out 5.6 % bigger than its input: rewritten libraries were
deflated by ISA-L alone, 12-23 % worse than zlib level 6. Here every rewritten member is
checked against zlib at the level asked for, on real clang-built HIP libraries; a RECORD
line that lies is one warning and a correct RECORD in the outputs; a member whose stream
does not inflate is one error naming the wheel and the member, with nothing written.
"""

from __future__ import annotations

import hashlib
import zipfile
import zlib
from pathlib import Path

import pytest

from cli_runner import run_main
from fatwheel import DIST_INFO, HIP_DIR, build_fat_wheel, metadata
from wheel_size.wheel.record import encode_digest, parse_record
from wheel_size.wheel.writer import deflate_file

PY_TAG = "cp311-cp311-manylinux_2_28_x86_64"
NAME = f"torch-2.10.0+rocm7.1-{PY_TAG}.whl"
WHEEL = f"Wheel-Version: 1.0\nRoot-Is-Purelib: false\nTag: {PY_TAG}\n".encode()
INIT = b"# torch\n" * 64


def split(wheel: Path, out: Path, *extra: str) -> tuple[int, str]:
    result = run_main(
        ["split", "--input", str(wheel), "--output-dir", str(out),
         "--device-package-prefix", "amd-torch-device", "--overlay-root", "torch/", *extra]
    )  # fmt: skip
    return result.returncode, result.stderr


def zlib_size(data: bytes, level: int) -> int:
    compressor = zlib.compressobj(level, zlib.DEFLATED, -15)
    return len(compressor.compress(data) + compressor.flush())


def sha(data: bytes) -> str:
    return "sha256=" + encode_digest(hashlib.sha256(data).digest())


def zip_wheel(path: Path, files: dict[str, bytes], *, level: int = 6, record: str = "") -> Path:
    """A wheel with the given members deflated at ``level`` and RECORD ``record`` (a true one
    when empty)."""
    rows = record or "".join(f"{n},{sha(d)},{len(d)}\n" for n, d in files.items())
    rows += f"{DIST_INFO}/RECORD,,\n"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=level) as zf:
        for name, data in files.items():
            info = zipfile.ZipInfo(name, (2026, 1, 1, 0, 0, 0))
            info.external_attr = 0o100755 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(info, data, compresslevel=level)
        zf.writestr(f"{DIST_INFO}/RECORD", rows)
    return path


def fat_files() -> dict[str, bytes]:
    return {
        "torch/__init__.py": INIT,
        "torch/lib/libmulti19.so": (HIP_DIR / "libmulti19.so").read_bytes(),
        f"{DIST_INFO}/METADATA": metadata(),
        f"{DIST_INFO}/WHEEL": WHEEL,
    }


@pytest.mark.parametrize("level", [1, 6, 9])
def test_deflate_file_is_never_larger_than_zlib(tmp_path: Path, level: int) -> None:
    for library in sorted(HIP_DIR.glob("*.so")):
        done = deflate_file(library, tmp_path / "out.deflate", level=level)
        data = library.read_bytes()
        assert done.raw.compressed_size <= zlib_size(data, level), library.name
        assert done.raw.compressed_size == min(done.sizes.values())
        stream = (tmp_path / "out.deflate").read_bytes()
        assert zlib.decompress(stream, -15) == data
        assert not list(tmp_path.glob("out.deflate.*"))  # the losing candidate is gone


def test_rewritten_members_are_no_larger_than_zlib_6(tmp_path: Path) -> None:
    wheel = build_fat_wheel(tmp_path / "in")
    out = tmp_path / "out"
    code, stderr = split(wheel, out, "--wheel-type", "torch-fat", "-j", "2")
    assert code == 0, stderr
    with zipfile.ZipFile(wheel) as before, zipfile.ZipFile(out / wheel.name) as host:
        rewritten = [
            info
            for info in host.infolist()
            if info.filename.endswith(".so") and host.read(info) != before.read(info.filename)
        ]
        assert rewritten  # the fat libraries
        for info in rewritten:
            assert info.compress_size <= zlib_size(host.read(info), 6), info.filename


def test_host_larger_than_input_names_the_members(tmp_path: Path) -> None:
    wheel = zip_wheel(tmp_path / NAME, fat_files(), level=9)
    out = tmp_path / "out"
    code, stderr = split(wheel, out, "--deflate-level", "0")  # stored: surely larger
    assert code == 0, stderr
    grown = [ln for ln in stderr.splitlines() if "host wheel larger than the input" in ln]
    assert len(grown) == 1, stderr
    assert str(wheel) in grown[0] and "torch/lib/libmulti19.so" in grown[0]
    assert (out / NAME).stat().st_size > wheel.stat().st_size


def test_no_growth_warning_at_the_inputs_own_level(tmp_path: Path) -> None:
    wheel = zip_wheel(tmp_path / NAME, fat_files(), level=6)
    code, stderr = split(wheel, tmp_path / "out")
    assert code == 0, stderr
    assert "host wheel larger" not in stderr
    assert (tmp_path / "out" / NAME).stat().st_size <= wheel.stat().st_size


def test_record_that_lies_is_one_warning_and_a_true_record(tmp_path: Path) -> None:
    files = fat_files()
    lie = sha(b"something else")
    rows = "".join(
        f"{n},{lie if n == 'torch/__init__.py' else sha(d)},{len(d)}\n" for n, d in files.items()
    )
    wheel = zip_wheel(tmp_path / NAME, files, record=rows)
    out = tmp_path / "out"
    code, stderr = split(wheel, out, "--verify-record")
    assert code == 0, stderr
    lies = [ln for ln in stderr.splitlines() if "RECORD lies" in ln]
    assert len(lies) == 1, stderr
    assert str(wheel) in lies[0] and "torch/__init__.py" in lies[0]
    with zipfile.ZipFile(out / NAME) as host:
        rows_out = parse_record(host.read(f"{DIST_INFO}/RECORD").decode(), source="host")
        assert {r.path: r.hash for r in rows_out}["torch/__init__.py"] == sha(INIT)


def test_record_size_lie_is_caught_without_inflating(tmp_path: Path) -> None:
    # By default a member copied verbatim is not inflated: its RECORD size is checked
    # against the zip's (free), and a wrong size is one warning and a true RECORD line.
    files = fat_files()
    rows = "".join(
        f"{n},{sha(d)},{len(d) + 1 if n == 'torch/__init__.py' else len(d)}\n"
        for n, d in files.items()
    )
    wheel = zip_wheel(tmp_path / NAME, files, record=rows)
    out = tmp_path / "out"
    code, stderr = split(wheel, out)
    assert code == 0, stderr
    lies = [ln for ln in stderr.splitlines() if "RECORD lies" in ln]
    assert len(lies) == 1 and "size of torch/__init__.py" in lies[0], stderr
    with zipfile.ZipFile(out / NAME) as host:
        rows_out = parse_record(host.read(f"{DIST_INFO}/RECORD").decode(), source="host")
        row = {r.path: r for r in rows_out}["torch/__init__.py"]
        assert (row.hash, row.size) == (sha(INIT), len(INIT))


def test_default_check_carries_a_hash_lie_of_a_verbatim_member(tmp_path: Path) -> None:
    # The documented rule (docs/split.md): hashes are checked for what is inflated anyway,
    # not for members copied verbatim with the right size (--verify-record checks those).
    files = fat_files()
    rows = "".join(
        f"{n},{sha(b'x') if n == 'torch/__init__.py' else sha(d)},{len(d)}\n"
        for n, d in files.items()
    )
    wheel = zip_wheel(tmp_path / NAME, files, record=rows)
    code, stderr = split(wheel, tmp_path / "out")
    assert code == 0, stderr
    assert "RECORD lies" not in stderr


def test_member_that_does_not_inflate_is_refused(tmp_path: Path) -> None:
    wheel = zip_wheel(tmp_path / NAME, fat_files())
    data = bytearray(wheel.read_bytes())
    with zipfile.ZipFile(wheel) as zf:
        info = zf.getinfo("torch/__init__.py")
    start = info.header_offset + 30 + len(info.filename)
    for at in range(start, start + info.compress_size):
        data[at] ^= 0x5A
    wheel.write_bytes(bytes(data))
    out = tmp_path / "out"
    # by default a member copied verbatim keeps its compressed bytes and their CRC, which
    # every zip reader checks on extraction; --verify-record inflates it before writing
    code, stderr = split(wheel, out, "--verify-record")
    errors = [ln for ln in stderr.splitlines() if ln.startswith("wheel-size: error:")]
    assert code == 2, stderr
    assert len(errors) == 1, stderr
    assert str(wheel) in errors[0] and "torch/__init__.py" in errors[0]
    assert not out.exists()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".out.split-")]


def test_trust_record_skips_the_check(tmp_path: Path) -> None:
    files = fat_files()
    rows = "".join(
        f"{n},{sha(b'x') if n == 'torch/__init__.py' else sha(d)},{len(d)}\n"
        for n, d in files.items()
    )
    wheel = zip_wheel(tmp_path / NAME, files, record=rows)
    code, stderr = split(wheel, tmp_path / "out", "--trust-record")
    assert code == 0, stderr
    assert "RECORD lies" not in stderr


def test_record_lie_about_a_library_left_unchanged_is_caught(tmp_path: Path) -> None:
    # libhost.so is ELF (a library candidate, inflated by its own job) without device code
    files = {**fat_files(), "torch/lib/libhost.so": (HIP_DIR / "libhost.so").read_bytes()}
    rows = "".join(
        f"{n},{sha(b'y') if n.endswith('libhost.so') else sha(d)},{len(d)}\n"
        for n, d in files.items()
    )
    wheel = zip_wheel(tmp_path / NAME, files, record=rows)
    out = tmp_path / "out"
    code, stderr = split(wheel, out, "-j", "2")
    assert code == 0, stderr
    lies = [ln for ln in stderr.splitlines() if "RECORD lies" in ln]
    assert len(lies) == 1 and "torch/lib/libhost.so" in lies[0], stderr
    with zipfile.ZipFile(out / NAME) as host:
        rows_out = parse_record(host.read(f"{DIST_INFO}/RECORD").decode(), source="host")
        truth = sha(files["torch/lib/libhost.so"])
        assert {r.path: r.hash for r in rows_out}["torch/lib/libhost.so"] == truth
