"""Every hostile wheel of issue #10 through the real CLI: ``audit``, ``diff`` and ``split``.

Each run must end in exit 2 with exactly one ``wheel-size: error: <file>: <problem>`` line, no
traceback, nothing in the output directory, and within a 1.5 GiB address space: a bomb that
got inflated would fail the test with a MemoryError instead of taking the machine down. The
wheels come from the committed generator (scripts/make_hostile_wheels.py).
"""

from __future__ import annotations

import resource
import subprocess
from pathlib import Path

import pytest

from conftest import run_cli
from hostile_wheels import baseline, build, case_names

_ADDRESS_SPACE = 3 << 29  # 1.5 GiB
# What each case must be refused for (a fragment of the one error line).
EXPECTED = {
    "bzip2_bomb": "compressed with bzip2 (method 12); wheels only use stored or deflate",
    "lzma_bomb": "compressed with LZMA (method 14); wheels only use stored or deflate",
    "deflate_bomb": "inflates beyond its declared size of 1024 bytes",
    "deflate_bomb_declared": "declared total size",
    "overlap_bomb": "'hostile/lib1.so'",
    "bad_crc": "bad CRC-32",
    "bad_crc_stored": "bad CRC-32",
    "size_lie_local": "local header declares CRC-32",
    "size_lie_short": "(size lie)",
    "truncated_stream": "deflate stream ends early",
    "corrupt_deflate": "corrupt data",
    "truncated_archive": "not a zip archive",
    "unsupported_method": "compressed with deflate64 (method 9)",
    "encrypted": "encrypted",
    "name_traversal": "escapes the wheel root",
    "name_absolute": "absolute path",
    "name_backslash": "backslash in name",
    "name_drive": "absolute path",
    "name_nul": "NUL in name",
    "name_long": "more than the limit of 1024",
    "duplicate_names": "duplicate name",
    "symlink": "symlink",
    "entry_count_lie": "the end record counts 5 entries",
    "huge_entry_count": "990004 entries, more than the limit",
    "fifo": "not a regular file (a FIFO)",
}


def test_every_generated_case_has_an_expectation() -> None:
    assert sorted(EXPECTED) == sorted(case_names())


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("hostile")
    wheels = build(root)
    wheels["baseline"] = baseline(root)
    return wheels


def _cap_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (_ADDRESS_SPACE, _ADDRESS_SPACE))


def _run(args: list[str]) -> subprocess.CompletedProcess[str]:
    # The timeout only turns a hang (a FIFO opened for reading) into a failure.
    return run_cli(args, timeout=120, preexec_fn=_cap_memory)


def _assert_one_clean_error(
    result: subprocess.CompletedProcess[str], wheel: Path, case: str
) -> None:
    assert "Traceback" not in result.stderr, result.stderr
    assert result.returncode == 2, (result.returncode, result.stderr)
    # split reports progress ("split: shared libraries: … failed") before the error line.
    lines = [line for line in result.stderr.splitlines() if not line.startswith("split: ")]
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("wheel-size: error: "), lines[0]
    assert result.stderr.rstrip("\n").endswith(lines[0])
    assert f"{wheel}: " in lines[0], lines[0]
    assert EXPECTED[case] in lines[0], lines[0]


@pytest.mark.parametrize("case", sorted(EXPECTED))
def test_audit_refuses(case: str, hostile: dict[str, Path]) -> None:
    wheel = hostile[case]
    _assert_one_clean_error(_run(["audit", str(wheel)]), wheel, case)


@pytest.mark.parametrize("case", sorted(EXPECTED))
def test_diff_refuses(case: str, hostile: dict[str, Path]) -> None:
    wheel = hostile[case]
    _assert_one_clean_error(_run(["diff", str(hostile["baseline"]), str(wheel)]), wheel, case)


@pytest.mark.parametrize("case", sorted(EXPECTED))
def test_split_refuses_and_writes_nothing(
    case: str, hostile: dict[str, Path], tmp_path: Path
) -> None:
    wheel = hostile[case]
    out = tmp_path / "out"
    result = _run(
        [
            "split",
            "--input",
            str(wheel),
            "--output-dir",
            str(out),
            "--device-package-prefix",
            "hostile-device",
            "--overlay-root",
            "hostile",
        ]
    )
    _assert_one_clean_error(result, wheel, case)
    assert list(tmp_path.iterdir()) == [], "split left files behind"


def test_the_baseline_is_fine(hostile: dict[str, Path]) -> None:
    """The other side of every diff is a readable wheel, so the refusals above are the
    hostile side's."""
    result = _run(["audit", str(hostile["baseline"])])
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
