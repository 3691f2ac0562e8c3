"""The split command line: AMD's flags, repeated list flags, refused values."""

from __future__ import annotations

import pytest

from wheel_size.cli.main import build_parser

BASE = ["split", "--input", "w.whl", "--output-dir", "out", "--device-package-prefix", "p",
        "--overlay-root", "torch/"]  # fmt: skip


def test_amd_flags_and_defaults() -> None:
    args = build_parser().parse_args(BASE)
    assert (args.output_format, args.compression, args.compression_level, args.jobs) == (
        "wheel",
        "zstd",
        3,
        "auto",  # one worker per idle core (wheel_size.split.jobs)
    )
    assert args.kpack_layout == "per-processor"
    assert (args.variant_label, args.extra_naming, args.device_requires_dist) == (
        "variant",
        "plain",
        [],
    )


def test_list_flags_accumulate() -> None:
    args = build_parser().parse_args(
        [*BASE, "--device-requires-dist", "a", "--device-requires-dist", "b", "c",
         "--databases", "miopen", "--databases", "rocblas", "--wheel-type", "torch-fat"]
    )  # fmt: skip
    assert args.device_requires_dist == ["a", "b", "c"]
    assert args.databases == ["miopen", "rocblas"]


@pytest.mark.parametrize(
    "extra",
    [["-j", "0"], ["--databases", "cudnn"], ["--output-format", "tar"], ["--compression", "lz4"]],
)
def test_refused_values(extra: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        build_parser().parse_args([*BASE, *extra])
    assert info.value.code == 2
    assert extra[0] in capsys.readouterr().err
