"""Hostile names reaching ``split``: one error line, exit 2, nothing written anywhere.

Issue 10: a METADATA ``Version`` of ``1.0/../../x`` made split write a device wheel outside
``--output-dir`` and exit 0. Every part of an output name (Name, Version, WHEEL tags, the
input's file name, the device prefix flag, a database directory's GPU name, requirement flags)
is tried here with a value that would escape, inject a header, or break a file name, in both
output formats. Sentinel ``*.whl`` files sit where an escape would land; the whole tree around
the output directory is compared byte for byte and by mtime before and after.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from cli_runner import run_main
from fatwheel import DIST_INFO, HIP_DIR, metadata, write_wheel

TAG = "cp311-cp311-linux_x86_64"
GOOD_NAME = f"torch-2.10.0+rocm7.1-{TAG}.whl"
WHEEL_FILE = f"Wheel-Version: 1.0\nRoot-Is-Purelib: false\nTag: {TAG}\n".encode()


def hostile_wheel(
    path: Path,
    *,
    meta: bytes | None = None,
    wheel: bytes = WHEEL_FILE,
    extra: dict[str, bytes] | None = None,
) -> Path:
    """A small fat wheel (one real HIP library) with the given METADATA and WHEEL."""
    files = [("torch/lib/libmulti19.so", (HIP_DIR / "libmulti19.so").read_bytes(), 0o755)]
    files += [(name, data, 0o644) for name, data in (extra or {}).items()]
    files += [
        (f"{DIST_INFO}/METADATA", meta if meta is not None else metadata(), 0o644),
        (f"{DIST_INFO}/WHEEL", wheel, 0o644),
    ]
    path.parent.mkdir(parents=True, exist_ok=True)
    return write_wheel(path, files)


def tree(root: Path) -> dict[str, tuple[bytes, int] | None]:
    """Every path under ``root``: files by (bytes, mtime), directories as None."""
    out: dict[str, tuple[bytes, int] | None] = {}
    for path in sorted(root.rglob("*")):
        rel = str(path.relative_to(root))
        out[rel] = None if path.is_dir() else (path.read_bytes(), path.stat().st_mtime_ns)
    return out


def plant(root: Path) -> Path:
    """Sentinel wheels where a ``../`` escape from the output directory would write, and the
    output directory's place (not created)."""
    out = root / "a" / "b" / "c" / "out"
    for where in (root, root / "a", root / "a" / "b", root / "a" / "b" / "c"):
        where.mkdir(parents=True, exist_ok=True)
        for name in (f"x-{TAG}.whl", f"x-1.0-{TAG}.whl", f"evil-1.0-{TAG}.whl"):
            (where / name).write_bytes(b"SENTINEL " + name.encode())
    return out


def assert_refused(
    tmp_path: Path, wheel: Path, needles: tuple[str, ...], *flags: str, fmt: str = "wheel"
) -> None:
    out = plant(tmp_path / "world")
    before = tree(tmp_path / "world")
    result = run_main(
        ["split", "--input", str(wheel), "--output-dir", str(out),
         "--device-package-prefix", "amd-torch-device", "--overlay-root", "torch/",
         "--wheel-type", "torch-fat", "--output-format", fmt,
         "--report-json", str(out.parent / "r.json"), "--report-md", str(out.parent / "r.md"),
         *flags]
    )  # fmt: skip
    stderr = result.stderr
    errors = [line for line in stderr.splitlines() if line.startswith("wheel-size: error:")]
    assert result.returncode == 2, stderr
    assert len(errors) == 1, stderr
    assert "Traceback" not in stderr, stderr
    for needle in needles:
        assert needle in errors[0], errors[0]
    assert tree(tmp_path / "world") == before  # nothing outside changed, nothing inside made
    assert not out.exists()


FORMATS = ["wheel", "directory"]


def meta_with(**headers: str) -> bytes:
    """METADATA with raw header values (line breaks and all)."""
    lines = [f"{name.replace('_', '-')}: {value}" for name, value in headers.items()]
    return ("Metadata-Version: 2.1\n" + "\n".join(lines) + "\n\nbody\n").encode()


METADATA_CASES: dict[str, tuple[bytes, tuple[str, ...]]] = {
    "version-traversal": (
        meta_with(Name="torch", Version="1.0/../../x"),
        ("METADATA Version", "1.0/../../x", "PEP 440"),
    ),
    "version-deep-traversal": (
        meta_with(Name="torch", Version="1.0/../../../../../x"),
        ("METADATA Version", "PEP 440"),
    ),
    "version-absolute": (meta_with(Name="torch", Version="/tmp/x"), ("METADATA Version",)),
    "version-header-injection": (
        meta_with(Name="torch", Version="1.0\n Requires-Dist: evil"),
        ("METADATA Version", "PEP 440"),
    ),
    "version-twice": (
        b"Metadata-Version: 2.1\nName: torch\nVersion: 1.0\nVersion: 2.0\n\n",
        ("2 Version header(s)",),
    ),
    "name-traversal": (meta_with(Name="../../evil", Version="1.0"), ("METADATA Name", "PEP 508")),
    "name-slash": (meta_with(Name="evil/../../x", Version="1.0"), ("METADATA Name",)),
    "name-header-injection": (
        meta_with(Name="torch\n Requires-Dist: evil", Version="1.0"),
        ("METADATA Name",),
    ),
    "name-missing": (meta_with(Version="1.0"), ("no Name header",)),
    "not-utf8": (
        b"Metadata-Version: 2.1\nName: torch\nVersion: 1.0\nSummary: \xff\xfe\n\n",
        ("METADATA is not UTF-8",),
    ),
}


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("case", sorted(METADATA_CASES))
def test_hostile_metadata(tmp_path: Path, case: str, fmt: str) -> None:
    meta, needles = METADATA_CASES[case]
    # Not a wheel-shaped file name, so the host name too is composed from METADATA.
    wheel = hostile_wheel(tmp_path / "in" / "input.whl", meta=meta)
    assert_refused(tmp_path, wheel, (str(wheel), *needles), fmt=fmt)


WHEEL_CASES = {
    "tag-traversal": b"Wheel-Version: 1.0\nTag: cp311-cp311-linux/../../../x\n",
    "tag-header-injection": b"Wheel-Version: 1.0\nTag: cp311-cp311-linux\n _x86_64\n",
    "tag-empty-part": b"Wheel-Version: 1.0\nTag: cp311-cp311-..\n",
}


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("case", sorted(WHEEL_CASES))
def test_hostile_wheel_tags(tmp_path: Path, case: str, fmt: str) -> None:
    wheel = hostile_wheel(tmp_path / "in" / "input.whl", wheel=WHEEL_CASES[case])
    assert_refused(tmp_path, wheel, (str(wheel), "WHEEL Tag", "PEP 425"), fmt=fmt)


FILE_NAME_CASES = {
    "build-tag": "torch-2.10.0-1$(x)-cp311-cp311-linux_x86_64.whl",
    "build-tag-space": "torch-2.10.0-1 x-cp311-cp311-linux_x86_64.whl",
    "platform-dots": "torch-2.10.0-cp311-cp311-...whl",
    "platform-space": "torch-2.10.0-cp311-cp311-linux x86_64.whl",
    "platform-empty-set": "torch-2.10.0-cp311-cp311-linux_x86_64..any.whl",
    "name-non-ascii": "törch-2.10.0-cp311-cp311-linux_x86_64.whl",
}


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("case", sorted(FILE_NAME_CASES))
def test_hostile_input_file_name(tmp_path: Path, case: str, fmt: str) -> None:
    name = FILE_NAME_CASES[case]
    wheel = hostile_wheel(tmp_path / "in" / name)
    assert_refused(tmp_path, wheel, (name, "invalid wheel file name"), fmt=fmt)


FLAG_CASES: dict[str, tuple[list[str], tuple[str, ...]]] = {
    "prefix-traversal": (["--device-package-prefix", "../../evil"], ("--device-package-prefix",)),
    "prefix-slash": (["--device-package-prefix", "amd/../../x"], ("--device-package-prefix",)),
    "prefix-newline": (
        ["--device-package-prefix", "amd\nName: evil"],
        ("--device-package-prefix",),
    ),
    "requires-dist-injection": (
        ["--device-requires-dist", "foo\nName: evil"],
        ("--device-requires-dist", "PEP 508"),
    ),
    "requires-dist-garbage": (
        ["--device-requires-dist", "foo ; ; ;"],
        ("--device-requires-dist", "PEP 508"),
    ),
}


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("case", sorted(FLAG_CASES))
def test_hostile_flags(tmp_path: Path, case: str, fmt: str) -> None:
    flags, needles = FLAG_CASES[case]
    wheel = hostile_wheel(tmp_path / "in" / GOOD_NAME)
    assert_refused(tmp_path, wheel, needles, *flags, fmt=fmt)


@pytest.mark.parametrize("fmt", FORMATS)
def test_hostile_database_directory(tmp_path: Path, fmt: str) -> None:
    """An AOTriton directory names the GPU (``amd-gfx…``); one that is not a plain name must
    not become a device wheel's name."""
    member = "torch/lib/aotriton.images/amd-gfx9..x/flash/attn_fwd/FONLY__bf16.aks2"
    wheel = hostile_wheel(tmp_path / "in" / GOOD_NAME, extra={member: b"kernel" * 100})
    assert_refused(tmp_path, wheel, (str(wheel), "gfx9..x", "cannot name a device wheel"), fmt=fmt)


def test_valid_names_are_normalised(tmp_path: Path) -> None:
    """The device wheels carry the PEP 440 normal form of a valid but unusual Version."""
    meta = meta_with(Name="Torch.Nightly", Version="2.10.0-RC1+ROCm7.1")
    wheel = hostile_wheel(tmp_path / "in" / "input.whl", meta=meta)
    out = tmp_path / "out"
    result = run_main(
        ["split", "--input", str(wheel), "--output-dir", str(out),
         "--device-package-prefix", "amd-torch-device", "--overlay-root", "torch/"]
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    names = sorted(p.name for p in out.iterdir())
    assert f"torch_nightly-2.10.0rc1+rocm7.1-{TAG}.whl" in names
    assert f"amd_torch_device_gfx942-2.10.0rc1+rocm7.1-{TAG}.whl" in names
