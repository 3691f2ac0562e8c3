"""``--host-installs all``: a plain ``pip install torch`` from a backwards-compatible index
still gets every device wheel, while the per-GPU extras keep working (checked by pip)."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_split_end_to_end import PREFIX, expected_keys, pip_resolve, split_args

from cli_runner import run_main
from fatwheel import build_fat_wheel


@pytest.fixture(scope="module")
def fat(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_fat_wheel(tmp_path_factory.mktemp("in"))


def _split(fat: Path, out: Path, *extra: str) -> Path:
    result = run_main(split_args(fat, out, *extra))
    assert result.returncode == 0, result.stderr
    return out


def test_default_host_installs_only_the_host(fat: Path, tmp_path: Path) -> None:
    out = _split(fat, tmp_path / "out")
    assert pip_resolve(out, "torch", tmp_path) == {"torch", "rocm-bootstrap"}


def test_host_installs_all_pulls_every_device_wheel(fat: Path, tmp_path: Path) -> None:
    out = _split(fat, tmp_path / "out", "--host-installs", "all")
    devices = {f"{PREFIX}-{k.replace('_', '-')}" for k in expected_keys()}
    assert pip_resolve(out, "torch", tmp_path) == {"torch", "rocm-bootstrap", *devices}
    one_gpu = pip_resolve(out, "torch[gfx1100]", tmp_path)
    assert one_gpu == {"torch", "rocm-bootstrap", *devices}  # the default already has them


def test_host_installs_rejects_unknown_values(fat: Path, tmp_path: Path) -> None:
    result = run_main(split_args(fat, tmp_path / "out", "--host-installs", "some"))
    assert result.returncode == 2
    assert "invalid choice" in result.stderr
    assert not (tmp_path / "out").exists()
