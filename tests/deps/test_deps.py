"""The whole download (issue 34, point 5) against a package index on 127.0.0.1 built from
small generated wheels: the total is the sum of the files pip's own ``install --dry-run
--report`` names, as the file system counts them; a dependency that does not resolve for a
platform is one line with the other platforms intact; a pin that moved is named with the
version and the bytes; sizes are cached by pin."""

from __future__ import annotations

import json
import platform
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from cli_runner import run_main
from pypi_fixture import FixtureIndex, dep_wheel

LINUX = "manylinux_2_28_x86_64"


@pytest.fixture
def world(tmp_path: Path) -> tuple[Path, Path]:
    index = tmp_path / "index"
    dep_wheel(index, "nvidia-blob", "12.8.1", tag=f"py3-none-{LINUX}", payload=50_000)
    dep_wheel(index, "nvidia-blob", "12.8.1", tag="py3-none-win_amd64", payload=7_000)
    dep_wheel(index, "filelock", "3.1.0", payload=3_000)
    dep_wheel(index, "filelock", "3.2.0", payload=3_500)
    requires = ("filelock>=3.1", 'nvidia-blob==12.8.1; platform_system == "Linux"')
    top = dep_wheel(tmp_path / "dist", "torchy", "2.10.0", payload=90_000, requires=requires)
    return index, top


def _pip_total(top: Path, url: str, index: Path) -> int:
    """pip's own report, its files summed from the file system (the independent total)."""
    with tempfile.TemporaryDirectory() as target:
        done = subprocess.run(
            [sys.executable, "-m", "pip", "install", "--dry-run", "--ignore-installed",
             "--isolated", "--quiet", "--report", "-", "--target", target,
             "--index-url", f"{url}/simple", "--only-binary=:all:", "--platform", LINUX,
             "--python-version", "3.12", "--implementation", "cp", str(top)],
            capture_output=True, text=True, check=True,
        )  # fmt: skip
    total = 0
    for item in json.loads(done.stdout)["install"]:
        name = item["download_info"]["url"].rsplit("/", 1)[-1]
        total += (top if name == top.name else index / name).stat().st_size
    return total


def _deps(top: Path, url: str, *extra: str) -> tuple[int, str, str]:
    done = run_main(["deps", str(top), "--index-url", f"{url}/simple", "--python-version", "3.12",
                     "--implementation", "cp", *extra])  # fmt: skip
    return done.returncode, done.stdout, done.stderr


def test_total_is_what_pip_resolves(world: tuple[Path, Path], tmp_path: Path) -> None:
    index, top = world
    with FixtureIndex(index).serving() as url:
        status, out, err = _deps(top, url, "--platform", LINUX, "--format", "json")
        expected = _pip_total(top, url, index)
    assert status == 0, err
    (s,) = json.loads(out)["sets"]
    assert s["error"] is None and s["total_bytes"] == expected
    assert {(f["name"], f["version"]) for f in s["files"]} == {
        ("torchy", "2.10.0"), ("filelock", "3.2.0"), ("nvidia-blob", "12.8.1")}  # fmt: skip


def test_a_platform_that_does_not_resolve_is_one_line(world: tuple[Path, Path]) -> None:
    index, top = world
    with FixtureIndex(index).serving() as url:
        status, out, err = _deps(top, url, "--platform", LINUX, "--platform", "macosx_11_0_arm64")
    assert status == 0
    assert "### manylinux_2_28_x86_64" in out and "| filelock | 3.2.0 |" in out
    (line,) = [ln for ln in out.splitlines() if ln.startswith("Not resolved:")]
    assert "nvidia-blob" in line and "macosx_11_0_arm64" in line
    assert "macosx_11_0_arm64" in err and len(err.strip().splitlines()) == 1


def test_a_pin_that_moved_is_named_and_sizes_are_cached(
    world: tuple[Path, Path], tmp_path: Path
) -> None:
    index, top = world
    cache = tmp_path / "sizes.json"
    earlier = tmp_path / "earlier.json"
    fixture = FixtureIndex(index)
    with fixture.serving() as url:
        _deps(top, url, "--platform", LINUX, "--cache", str(cache), "-o", str(earlier),
              "--format", "json")  # fmt: skip
        heads = sum(r.startswith("HEAD") for r in fixture.requests)
        assert heads == 2  # the two dependencies; the given wheel is a local file
        dep_wheel(index, "filelock", "3.3.0", payload=40_000)  # a new release, much larger
        status, out, err = _deps(top, url, "--platform", LINUX, "--cache", str(cache),
                                 "--against", str(earlier))  # fmt: skip
    assert status == 0, err
    assert sum(r.startswith("HEAD") for r in fixture.requests) == heads + 1  # only the new pin
    (line,) = [ln for ln in out.splitlines() if ln.startswith("- filelock")]
    new = (index / "filelock-3.3.0-py3-none-any.whl").stat().st_size
    old = (index / "filelock-3.2.0-py3-none-any.whl").stat().st_size
    assert line.startswith("- filelock 3.2.0 → 3.3.0 (+")
    assert f"{(new - old) / 1024:,.1f} KB" in line
    assert "nvidia-blob" not in line


def test_a_set_for_another_system_says_its_markers_were_read_here(
    world: tuple[Path, Path],
) -> None:
    """pip evaluates ``; platform_system == "Linux"`` for the machine it runs on: the
    win_amd64 set counts the Linux-only nvidia-blob on a Linux machine. The report must say
    so rather than present that total as Windows' download."""
    index, top = world
    with FixtureIndex(index).serving() as url:
        status, out, err = _deps(top, url, "--platform", LINUX, "--platform", "win_amd64")
    assert status == 0, err
    linux, windows = out.split("### win_amd64", 1)
    host = platform.system()
    note = f"Environment markers were evaluated for this machine ({host}), as pip does"
    assert (note in windows) == (host != "Windows")
    assert (note in linux) == (host != "Linux")


def test_the_system_a_platform_tag_names() -> None:
    from wheel_size.deps.run import markers_evaluated_elsewhere as elsewhere

    assert elsewhere("win_amd64", "Linux") == "Linux"
    assert elsewhere("manylinux_2_28_x86_64", "Linux") is None
    assert elsewhere("musllinux_1_2_aarch64", "Darwin") == "Darwin"
    assert elsewhere("macosx_11_0_arm64", "Darwin") is None
    assert elsewhere("any", "Linux") is None  # a tag naming no system: nothing to say
