"""Issue 30, bad input: a wheel whose members are stored (not deflated) splits into the same
wheels, member for member, as its deflated twin, and no rewritten member is larger than the
stored member it replaces."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from cli_runner import run_main
from fatwheel import build_fat_wheel


def _stored_copy(wheel: Path, folder: Path) -> Path:
    folder.mkdir(parents=True)
    out = folder / wheel.name
    with zipfile.ZipFile(wheel) as src, zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as dst:
        for info in src.infolist():
            copy = zipfile.ZipInfo(info.filename, info.date_time)
            copy.external_attr = info.external_attr
            copy.compress_type = zipfile.ZIP_STORED
            dst.writestr(copy, src.read(info))
    return out


def _split(wheel: Path, out: Path) -> dict[str, dict[str, bytes]]:
    result = run_main(
        ["split", "--input", str(wheel), "--output-dir", str(out),
         "--device-package-prefix", "amd-torch-device", "--overlay-root", "torch/",
         "--wheel-type", "torch-fat", "-j", "1"]
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    wheels = {}
    for path in sorted(out.glob("*.whl")):
        with zipfile.ZipFile(path) as zf:
            assert zf.testzip() is None
            wheels[path.name] = {i.filename: zf.read(i) for i in zf.infolist()}
    return wheels


@pytest.mark.slow  # two splits of the fixture wheel
def test_stored_members_split_like_deflated_ones(tmp_path: Path) -> None:
    deflated = build_fat_wheel(tmp_path / "deflated")
    stored = _stored_copy(deflated, tmp_path / "stored")
    a = _split(deflated, tmp_path / "out-deflated")
    b = _split(stored, tmp_path / "out-stored")
    assert a.keys() == b.keys() and len(a) > 1
    for name in a:
        assert a[name].keys() == b[name].keys(), name
        for member in a[name]:
            if not member.endswith("/RECORD"):  # the same lines, whatever the input's order
                assert a[name][member] == b[name][member], (name, member)
    with zipfile.ZipFile(stored) as before:
        sizes = {i.filename: i.compress_size for i in before.infolist()}
    host = tmp_path / "out-stored" / stored.name
    with zipfile.ZipFile(host) as after:
        for info in after.infolist():
            if info.filename in sizes and ".dist-info/" not in info.filename:
                assert info.compress_size <= sizes[info.filename], info.filename
