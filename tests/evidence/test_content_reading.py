"""Each reading of a wheel diff: the pattern and numbers it stores, and the sentences the
templates make of them (Markdown for the issue, plain text for a candidate's status).

The diffs are the diff's own data model, as ``wheel-size diff`` produces it; file names
come from wheels, so one carries a mention, a backtick and a link to prove the sentences
quote them safely.
"""

from __future__ import annotations

import json

import pytest

from wheel_size.diff.model import FileDiff, GpuDelta, SectionDelta, Totals, WheelDiff
from wheel_size.evidence.reading import (
    ContentReading,
    read_growth,
    reading_markdown,
    support_text,
)
from wheel_size.render.safe_markdown import neutralise_cell
from wheel_size.units import MB

LIB = "torch/lib/libtorch_cuda.so"


def _diff(*files: FileDiff) -> WheelDiff:
    grown = sum(f.installed_delta for f in files)
    return WheelDiff(
        "old.whl", "new.whl", Totals(100 * MB, 100 * MB, 900 * MB, 900 * MB + grown), list(files)
    )


def _lib(path: str, sections: dict[str, tuple[int, int]], gpu: list[GpuDelta]) -> FileDiff:
    old = sum(a for a, _ in sections.values())
    new = sum(b for _, b in sections.values())
    return FileDiff(
        path, "changed", 0, 0, old, new,
        [SectionDelta(name, a, b) for name, (a, b) in sections.items()], gpu,
    )  # fmt: skip


def _sass(
    arch: str, old: int, new: int, old_n: int = 4, new_n: int = 4, codec: str = "none"
) -> GpuDelta:
    return GpuDelta(
        "cuda", ".nv_fatbin", arch, "sass", old, new, old, new, old_n, new_n, ["none"], [codec]
    )


CASES = {
    "kernel-instantiations": _diff(
        _lib(
            LIB,
            {".nv_fatbin": (40 * MB, 44 * MB), ".text": (10 * MB, 10 * MB + 1000)},
            [_sass("sm_80", 20 * MB, 22 * MB), _sass("sm_90", 20 * MB, 22 * MB)],
        )
    ),
    "new-architectures": _diff(
        _lib(
            LIB,
            {".nv_fatbin": (40 * MB, 60 * MB)},
            [_sass("sm_80", 40 * MB, 40 * MB), _sass("sm_100", 0, 20 * MB, 0, 4)],
        )
    ),
    "compression-change": _diff(
        _lib(
            LIB,
            {".nv_fatbin": (40 * MB, 50 * MB)},
            [_sass("sm_80", 40 * MB, 50 * MB, codec="zstd")],
        )
    ),
    "device-code": _diff(
        _lib(
            LIB,
            {".nv_fatbin": (40 * MB, 45 * MB)},
            [_sass("sm_80", 20 * MB, 25 * MB), _sass("sm_90", 20 * MB, 20 * MB)],
        )
    ),
    "host-code": _diff(_lib(LIB, {".text": (10 * MB, 13 * MB)}, [])),
    "debug-info": _diff(_lib(LIB, {".debug_info": (0, 3 * MB)}, [])),
    "new-files": _diff(FileDiff("torch/`x` @octocat [a](http://e.x).py", "added", 0, 0, 0, 3 * MB)),
    "grafted-library": _diff(FileDiff("torch.libs/libcudart-1a2b.so.12", "added", 0, 0, 0, 3 * MB)),
}


@pytest.mark.parametrize("pattern", sorted(CASES))
def test_every_pattern_has_data_and_a_sentence(pattern: str) -> None:
    reading = read_growth([CASES[pattern]])
    assert reading.pattern == pattern
    assert reading.amount > 0 and reading.installed_delta > 0
    stored = json.dumps(reading.to_json())
    assert "`" not in stored.replace("torch/`x`", "")  # data only: the name as it is
    markdown = reading_markdown(reading)
    assert markdown.count("\n") == 0 and markdown.endswith(".")
    assert "KiB" not in markdown and "MiB" not in markdown
    plain = support_text(reading, ["cuda-kernels"])
    assert plain.startswith(f"the two nightlies' wheels show {pattern.replace('-', ' ')} (+")
    assert "`" not in plain.replace("torch/`x`", "")


def test_numbers_are_in_the_project_units() -> None:
    reading = read_growth([CASES["kernel-instantiations"]])
    assert reading.amount == 4 * MB and reading.sections == [".nv_fatbin"]
    assert reading_markdown(reading) == (
        "Growth is +4.0 MB in `.nv_fatbin` of `torch/lib/libtorch_cuda.so`, spread over every "
        "architecture (sm_80, sm_90): new kernel instantiations."
    )
    assert support_text(reading, ["cuda-kernels"]) == (
        "the two nightlies' wheels show kernel instantiations (+4.0 MB in "
        "torch/lib/libtorch_cuda.so), which its changes (cuda-kernels) explain; "
        "no per-commit build to confirm it"
    )
    added = read_growth([CASES["new-architectures"]])
    assert added.archs_added == ["sm_100"] and added.amount == 20 * MB
    assert "(+20.0 MB) is device code for architectures the old wheel did not have (sm_100)" in (
        reading_markdown(added)
    )


def test_names_from_the_wheel_cannot_mention_or_link() -> None:
    reading = read_growth([CASES["new-files"]])
    markdown = reading_markdown(reading)
    assert markdown.startswith("Growth comes from files new in the wheel (+3.0 MB): ")
    assert "@octocat" not in markdown  # a zero-width joiner breaks the mention
    assert "[a](http" not in markdown and "\\[a\\]" in markdown  # no link
    # the status text is plain; the issue body makes it safe like every status
    status = neutralise_cell(support_text(reading, ["build-image"]))
    assert "@octocat" not in status and "[a](http" not in status


def test_shrink_and_no_change() -> None:
    same = WheelDiff("a", "b", Totals(1, 1, 5, 5), [])
    assert reading_markdown(read_growth([same])) == "The two wheels have the same contents."
    smaller = _diff(_lib(LIB, {".text": (10 * MB, 8 * MB)}, []))
    shrink = read_growth([smaller])
    assert shrink.pattern == "shrink" and shrink.amount == -2 * MB
    assert reading_markdown(shrink) == "The wheel's installed size changed by -2.0 MB."


def test_an_old_reading_round_trips_through_json_fields() -> None:
    reading = ContentReading("host-code", 5, 0, LIB, amount=5)
    assert set(reading.to_json()) == {
        "pattern", "installed_delta", "device_delta", "amount", "top_file", "sections",
        "files", "archs_grown", "archs_added",
    }  # fmt: skip
