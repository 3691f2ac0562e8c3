"""``--host-installs all``: a plain ``pip install torch`` from a backwards-compatible index
still gets every device wheel, while the per-GPU extras keep working (checked by pip)."""

from __future__ import annotations

import json
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


def _sizes_pip_downloads(out: Path, requirement: str, tmp_path: Path) -> int:
    """Bytes of the output wheels pip resolves for ``requirement`` (the independent truth:
    pip's own resolver over the written files; rocm-bootstrap is not an output)."""
    names = pip_resolve(out, requirement, tmp_path) - {"rocm-bootstrap"}
    files = {p.name.split("-")[0].replace("_", "-"): p for p in out.glob("*.whl")}
    return sum(files[name.replace("_", "-")].stat().st_size for name in names)


@pytest.mark.parametrize("mode", ["extras", "all"])
def test_report_sizes_are_what_pip_downloads(fat: Path, tmp_path: Path, mode: str) -> None:
    """Per GPU, per extra and for [all], in both modes: the report's size is what pip
    resolves from the outputs; with --host-installs all a GPU's extra downloads every device
    wheel, and every install larger than the fat wheel is named."""
    report_path = tmp_path / "report.json"
    out = _split(fat, tmp_path / "out", "--host-installs", mode, "--report-json", str(report_path))
    report = json.loads(report_path.read_text())
    fat_size = fat.stat().st_size
    for row in report["downloads"][:2]:
        truth = _sizes_pip_downloads(out, f"torch[{row['extra']}]", tmp_path)
        assert row["size"] == truth, row["target"]
        assert (row["also_downloads"] > 0) == (mode == "all")
    plain, everything = report["installs"]
    assert everything["install"] == "torch[all]"
    assert everything["size"] == _sizes_pip_downloads(out, "torch[all]", tmp_path)
    assert plain["size"] == _sizes_pip_downloads(out, "torch", tmp_path)
    named = {row["target"] for row in report["downloads"] if row["size"] > fat_size}
    costlier = set(report["costlier"])
    assert {f"torch[{t}]" for t in named} | {
        r["install"] for r in report["installs"] if r["size"] > fat_size
    } == costlier
    if mode == "all":
        assert costlier and "download more than the fat wheel" in run_report_markdown(report)


def run_report_markdown(report: dict[str, object]) -> str:
    from wheel_size.split.report import render_split_report

    return render_split_report(report)  # type: ignore[arg-type]
