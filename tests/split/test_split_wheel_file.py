"""The input's file name, WHEEL and METADATA before a split writes (issues 17 and 20).

cupy-rocm-7-0 14.2.0 is named ``manylinux2014_x86_64`` while its WHEEL says ``linux_x86_64``:
the split tagged every device wheel from WHEEL, which PyPI refuses and pip does not install
next to the host. Here the outputs follow the file name (one warning naming both), pip
resolves host and device wheels for the input's platform, and a name, version or build tag
that cannot be trusted is one error line with nothing written.
"""

from __future__ import annotations

import email.parser
import subprocess
import sys
import zipfile
from pathlib import Path

from cli_runner import run_main
from fatwheel import DIST_INFO, HIP_DIR, build_stub_wheel, metadata, write_wheel

PLATFORM = "manylinux_2_28_x86_64"
PY = f"cp{sys.version_info.major}{sys.version_info.minor}"
NAME = f"torch-2.10.0+rocm7.1-{PY}-{PY}-{PLATFORM}.whl"
PREFIX = "amd-torch-device"


def wheel_file(tag: str, *extra: str) -> bytes:
    lines = ["Wheel-Version: 1.0", "Generator: tests", "Root-Is-Purelib: false", f"Tag: {tag}"]
    return ("\n".join([*lines, *extra]) + "\n").encode()


def small_fat_wheel(path: Path, *, wheel: bytes, meta: bytes | None = None) -> Path:
    files = [
        ("torch/__init__.py", b"", 0o644),
        ("torch/lib/libmulti19.so", (HIP_DIR / "libmulti19.so").read_bytes(), 0o755),
        (f"{DIST_INFO}/METADATA", meta if meta is not None else metadata(), 0o644),
        (f"{DIST_INFO}/WHEEL", wheel, 0o644),
    ]
    path.parent.mkdir(parents=True, exist_ok=True)
    return write_wheel(path, files)


def split(wheel: Path, out: Path) -> subprocess.CompletedProcess[str]:
    return run_main(
        ["split", "--input", str(wheel), "--output-dir", str(out),
         "--device-package-prefix", PREFIX, "--overlay-root", "torch/"]
    )  # fmt: skip


def warnings_of(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("wheel-size: warning:")]


def refused(wheel: Path, out: Path, *needles: str) -> None:
    result = split(wheel, out)
    errors = [ln for ln in result.stderr.splitlines() if ln.startswith("wheel-size: error:")]
    assert result.returncode == 2, result.stderr
    assert len(errors) == 1, result.stderr
    for needle in (str(wheel), *needles):
        assert needle in errors[0], errors[0]
    assert not out.exists()
    assert not [p for p in out.parent.iterdir() if p.name.startswith(f".{out.name}.split-")]


def wheel_headers(path: Path) -> email.message.Message:
    with zipfile.ZipFile(path) as zf:
        name = next(n for n in zf.namelist() if n.endswith(".dist-info/WHEEL"))
        return email.parser.BytesParser().parsebytes(zf.read(name))


def test_tags_follow_the_file_name_and_install_for_its_platform(tmp_path: Path) -> None:
    wheel = small_fat_wheel(tmp_path / "in" / NAME, wheel=wheel_file(f"{PY}-{PY}-linux_x86_64"))
    out = tmp_path / "out"
    result = split(wheel, out)
    assert result.returncode == 0, result.stderr
    (warning,) = warnings_of(result.stderr)
    assert str(wheel) in warning
    assert f"{PY}-{PY}-linux_x86_64" in warning and f"{PY}-{PY}-{PLATFORM}" in warning
    outputs = sorted(out.iterdir())
    assert len(outputs) >= 2
    for path in outputs:
        assert path.name.endswith(f"-{PY}-{PY}-{PLATFORM}.whl"), path.name
        assert wheel_headers(path).get_all("Tag") == [f"{PY}-{PY}-{PLATFORM}"], path.name
    links = tmp_path / "links"
    links.mkdir()
    for path in outputs:
        (links / path.name).write_bytes(path.read_bytes())
    build_stub_wheel(links)
    resolved = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--dry-run", "--no-index", "--find-links",
         str(links), "--platform", PLATFORM, "--python-version",
         f"{sys.version_info.major}.{sys.version_info.minor}", "--only-binary=:all:",
         "--target", str(tmp_path / "x"), "--disable-pip-version-check", "torch[all]"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert resolved.returncode == 0, resolved.stderr
    for path in outputs:
        dist = path.name.split("-")[0]
        assert dist in resolved.stdout.replace("-", "_"), (dist, resolved.stdout)


def test_host_wheel_file_carries_only_checked_lines(tmp_path: Path) -> None:
    tag = f"{PY}-{PY}-{PLATFORM}"
    hostile = wheel_file(tag, "X-Injected: yes", "Generator2: \x1b[31mred")
    wheel = small_fat_wheel(tmp_path / "in" / NAME, wheel=hostile)
    out = tmp_path / "out"
    result = split(wheel, out)
    assert result.returncode == 0, result.stderr
    assert warnings_of(result.stderr) == []
    headers = wheel_headers(out / NAME)
    assert sorted(headers.keys()) == ["Generator", "Root-Is-Purelib", "Tag", "Wheel-Version"]
    assert headers["Tag"] == tag


def test_build_tag_follows_the_file_name(tmp_path: Path) -> None:
    name = NAME.replace("rocm7.1-", "rocm7.1-1-", 1)
    wheel = small_fat_wheel(tmp_path / "in" / name, wheel=wheel_file(f"{PY}-{PY}-{PLATFORM}"))
    out = tmp_path / "out"
    result = split(wheel, out)
    assert result.returncode == 0, result.stderr
    (warning,) = warnings_of(result.stderr)
    assert "WHEEL Build (none)" in warning and str(wheel) in warning
    assert wheel_headers(out / name)["Build"] == "1"


def test_file_name_version_disagreeing_with_metadata_is_refused(tmp_path: Path) -> None:
    name = NAME.replace("2.10.0+rocm7.1", "2.11.0")
    wheel = small_fat_wheel(tmp_path / "in" / name, wheel=wheel_file(f"{PY}-{PY}-{PLATFORM}"))
    refused(wheel, tmp_path / "out", "version 2.11.0", "METADATA Version 2.10.0+rocm7.1")


def test_file_name_distribution_disagreeing_with_metadata_is_refused(tmp_path: Path) -> None:
    name = NAME.replace("torch-", "torchx-", 1)
    wheel = small_fat_wheel(tmp_path / "in" / name, wheel=wheel_file(f"{PY}-{PY}-{PLATFORM}"))
    refused(wheel, tmp_path / "out", "'torchx'", "METADATA Name 'torch'")


def test_hostile_build_line_is_refused(tmp_path: Path) -> None:
    hostile = wheel_file(f"{PY}-{PY}-{PLATFORM}", "Build: 1/../../x")
    wheel = small_fat_wheel(tmp_path / "in" / NAME, wheel=hostile)
    refused(wheel, tmp_path / "out", "WHEEL Build", "1/../../x")


def test_two_build_lines_are_refused(tmp_path: Path) -> None:
    hostile = wheel_file(f"{PY}-{PY}-{PLATFORM}", "Build: 1", "Build: 2")
    wheel = small_fat_wheel(tmp_path / "in" / NAME, wheel=hostile)
    refused(wheel, tmp_path / "out", "2 Build lines")


def test_equal_versions_spelled_differently_are_accepted(tmp_path: Path) -> None:
    name = NAME.replace("2.10.0+rocm7.1", "2.10+rocm7.1")  # PEP 440: 2.10 == 2.10.0
    wheel = small_fat_wheel(tmp_path / "in" / name, wheel=wheel_file(f"{PY}-{PY}-{PLATFORM}"))
    result = split(wheel, tmp_path / "out")
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "out" / name).exists()
