"""A pull request's wheel is compared with the nightly of exactly its build (issue 29 item 2,
issue 28 item 5): platform, accelerator and Python ABI read into one ``VariantKey``. A
free-threaded ``cp313t`` wheel is never compared with the GIL ``cp313`` nightly, an aarch64
wheel never with the x86_64 one, and a wheel whose tags contradict its file name or its
artifact is not compared: one line says so, and the check is not a pass."""

from __future__ import annotations

from pathlib import Path

from history_factory import run as run_record
from wheel_factory import make_wheel
from wheel_size.check.run import CheckOptions, run_check
from wheel_size.check.view import check_view
from wheel_size.history.history import History
from wheel_size.render import render
from wheel_size.variants import ArtifactNaming

X86 = "manylinux_2_28_x86_64"


def _history(sizes: dict[str, float]) -> History:
    return History.of([run_record("2026-01-10", sizes, pattern="manywheel-{}")])


def _check(wheels: list[Path], history: History):  # type: ignore[no-untyped-def]
    return run_check(CheckOptions(wheels=wheels, naming=ArtifactNaming()), history)


def _markdown(result) -> str:  # type: ignore[no-untyped-def]
    context = check_view(result, CheckOptions(wheels=[]).budget)
    return render("check_comment.md.j2", marker="", **context)


def test_free_threaded_wheel_is_compared_with_the_free_threaded_nightly(tmp_path: Path) -> None:
    history = _history({"py3_13-cuda12_8": 100.0, "py3_13t-cuda12_8": 110.0})
    wheel = make_wheel(tmp_path, "torch", "2.11.0.dev20260111+cu128", f"cp313-cp313t-{X86}")
    [check] = _check([wheel], history).checks
    assert check.wheel.python == "py3_13t" and check.wheel.key is not None
    assert check.wheel.key.free_threaded and check.wheel.key.python_abi == "cp313t"
    assert check.base is not None and check.base.artifact.name == "manywheel-py3_13t-cuda12_8"


def test_gil_wheel_is_never_compared_with_a_free_threaded_nightly(tmp_path: Path) -> None:
    history = _history({"py3_13t-cuda12_8": 110.0})
    wheel = make_wheel(tmp_path, "torch", "2.11.0.dev20260111+cu128", f"cp313-cp313-{X86}")
    result = _check([wheel], history)
    [check] = result.checks
    assert check.base is None
    assert check.notes == [
        "no stored nightly has an artifact manywheel-py3_13-cuda12_8: not checked"
    ]
    assert result.conclusion == "neutral"


def test_aarch64_wheel_is_compared_with_the_aarch64_nightly(tmp_path: Path) -> None:
    history = _history({"py3_12-cpu": 200.0, "py3_12-cpu-aarch64": 150.0})
    arm = make_wheel(tmp_path / "a", "torch", "2.11.0+cpu", "cp312-cp312-manylinux_2_28_aarch64")
    x86 = make_wheel(tmp_path / "x", "torch", "2.11.0+cpu", f"cp312-cp312-{X86}")
    result = _check([arm, x86], history)
    bases = {c.wheel.key.os: c.base.artifact.name for c in result.checks if c.base and c.wheel.key}
    assert bases == {"aarch64": "manywheel-py3_12-cpu-aarch64", "linux": "manywheel-py3_12-cpu"}
    assert result.conclusion == "success"


def test_wheel_whose_tags_disagree_with_its_file_name_is_one_line_not_a_pass(
    tmp_path: Path,
) -> None:
    history = _history({"py3_13-cuda12_8": 100.0, "py3_13t-cuda12_8": 110.0})
    name = f"torch-2.11.0.dev20260111+cu128-cp313-cp313-{X86}.whl"
    wheel = make_wheel(
        tmp_path, "torch", "2.11.0.dev20260111+cu128", f"cp313-cp313t-{X86}", filename=name
    )
    result = _check([wheel], history)
    [check] = result.checks
    assert check.base is None and check.wheel.variant is None
    assert check.notes == [
        f"its WHEEL metadata declares the tags cp313-cp313t-{X86} but its file name says "
        f"cp313-cp313-{X86}: not compared"
    ]
    assert result.conclusion == "neutral" and result.to_json()["not_checked"] == [name]
    markdown = _markdown(result)
    assert "### ⚪ Wheel size: not checked" in markdown and "✅" not in markdown
    assert sum("WHEEL metadata declares" in line for line in markdown.splitlines()) == 1


def test_wheel_whose_tags_contradict_its_artifact_folder_is_not_compared(tmp_path: Path) -> None:
    history = _history({"py3_12-cuda12_8": 100.0, "py3_13t-cuda12_8": 110.0})
    folder = tmp_path / "pr" / "manywheel-py3_12-cuda12_8"
    folder.mkdir(parents=True)
    make_wheel(folder, "torch", "2.11.0.dev20260111+cu128", f"cp313-cp313t-{X86}")
    result = _check([tmp_path / "pr"], history)
    [check] = result.checks
    assert check.base is None
    assert check.notes == [
        "its tags say Python cp313t but it came in artifact manywheel-py3_12-cuda12_8 "
        "(py3_12): not compared"
    ]
    assert result.conclusion == "neutral"


def test_one_wheel_not_checked_makes_the_headline_say_so(tmp_path: Path) -> None:
    history = _history({"py3_12-cuda12_8": 100.0})
    ok = make_wheel(tmp_path / "a", "torch", "2.11.0+cu128", f"cp312-cp312-{X86}")
    other = make_wheel(tmp_path / "b", "torch", "2.11.0+rocm7.0", f"cp312-cp312-{X86}")
    result = _check([ok, other], history)
    assert result.conclusion == "neutral"
    markdown = _markdown(result)
    assert "### ⚪ Wheel size: 1 of 2 wheels not checked, 1 within budget" in markdown


def test_windows_wheel_is_never_compared_with_the_linux_nightly(tmp_path: Path) -> None:
    # Before: matched by its +cu128 label alone, so compared with the manylinux artifact.
    history = _history({"py3_12-cuda12_8": 100.0})
    wheel = make_wheel(tmp_path, "torch", "2.11.0+cu128", "cp312-cp312-win_amd64")
    result = _check([wheel], history)
    [check] = result.checks
    assert check.base is None
    assert check.notes == [
        "no stored nightly has an artifact manywheel-py3_12-cuda12_8 for windows: not checked"
    ]
    assert result.conclusion == "neutral"
