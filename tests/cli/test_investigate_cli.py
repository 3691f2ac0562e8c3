"""``wheel-size investigate`` as a subprocess, against the fake GitHub server."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

from cli_runner import run_main
from fakegithub import FakeGitHub
from history_factory import run
from regression_world import Change, World, build_world
from wheel_size.history import DirectoryStore


def make_world(tmp_path: Path) -> World:
    changes = [Change(f"base {i}", {"README.md": f"{i}\n"}) for i in range(3)]
    changes += [
        Change("Use -O3 for everything (#164894)", {"cmake/public/utils.cmake": "set(O -O3)\n"}),
        Change("Add kernels (#165055)", {"aten/src/ATen/native/cuda/Reduce.cu": "k\n"}),
        Change("Bad idea (#1)", {"c10/bad.cpp": "x\n"}),
        Change('Revert "Bad idea (#1)"', removed=("c10/bad.cpp",)),
    ]
    return build_world(
        tmp_path / "git", changes, [("2025-10-10", 2, None), ("2025-10-11", 6, None)]
    )


def store_history(tmp_path: Path, w: World) -> Path:
    nights = {
        "2025-10-09": {"cpu": 175.0, "cuda12_8": 855.0},
        "2025-10-10": {"cpu": 175.0, "cuda12_8": 855.3},
        "2025-10-11": {"cpu": 176.4, "cuda12_8": 859.6},
        "2025-10-12": {"cpu": 176.4},  # the CUDA build failed
    }
    runs = []
    for day, sizes in nights.items():
        record = run(day, sizes)
        if day in w.nightly:
            record = dataclasses.replace(
                record,
                head_sha=w.nightly[day],
                base_sha=w.bases[day],
                title=f"{day} nightly release ({w.bases[day]})",
            )
        runs.append(record)
    root = tmp_path / "history"
    DirectoryStore(root).write_runs(runs)
    return root


def test_investigate_json(tmp_path: Path, fake_github: FakeGitHub) -> None:
    w = make_world(tmp_path)
    fake_github.add_repo("pytorch/pytorch", git_dir=w.path)
    history = store_history(tmp_path, w)
    args = ["investigate", "--history", str(history), "--date", "2025-10-11"]
    result = run_main([*args, "--variant", "CUDA 12.8", "--format", "json"], env=fake_github.env())
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["date"] == "2025-10-11" and data["variant"] == "cuda12_8"
    assert data["delta_mb"] == 4.3
    assert data["base_before"] == w.bases["2025-10-10"]
    assert data["base_after"] == w.bases["2025-10-11"]
    assert data["cross_variant"] == {"cpu": 1.4, "cuda12_8": 4.3}
    assert data["cross_variant_pattern"] == "shared"
    first = data["candidates"][0]
    assert first["sha"] == w.main[3] and first["pr"] == 164894 and first["rank"] == 1
    assert first["categories"] == ["compiler-flags"]
    assert first["status"] == "LIKELY"
    assert {c["sha"] for c in data["candidates"]} == {w.main[3], w.main[4]}
    # No such runs on the fake: the wheel contents are unavailable, and the reason is said.
    assert data["evidence"]["available"] is False
    assert data["evidence"]["unavailable_reason"]
    assert data["reverts_removed"] == [
        {
            "sha": w.main[6],
            "reverted_sha": w.main[5],
            "title": 'Revert "Bad idea (#1)"',
            "reverted_title": "Bad idea (#1)",
        }
    ]

    md = run_main([*args, "--variant", "cuda12_8", "--no-evidence"], env=fake_github.env())
    assert md.returncode == 0, md.stderr
    assert md.stdout.startswith("## `manywheel-py3_12-cuda12_8` grew by 4.3 MB")
    assert "wheel-size investigate --repo pytorch/pytorch --date 2025-10-11" in md.stdout


def test_bad_input_is_one_line(tmp_path: Path, fake_github: FakeGitHub) -> None:
    w = make_world(tmp_path)
    fake_github.add_repo("pytorch/pytorch", git_dir=w.path)
    history = str(store_history(tmp_path, w))
    cases = {
        ("--date", "2025-10-20", "--variant", "cpu"): "has no run on 2025-10-20",
        ("--date", "2025-10-11", "--variant", "rocm6_4"): "variants seen: cpu, cuda12_8",
        ("--date", "2025-10-09", "--variant", "cpu"): "no night with cpu in the 45 days",
        ("--date", "2025-10-12", "--variant", "cu128"): (
            "variant cuda12_8 is absent on 2025-10-12 (artifact 'manywheel-py3_12-cuda12_8'); "
            "variants that night: cpu"
        ),
        ("--date", "2025-13-01", "--variant", "cpu"): "not a valid date",
    }
    for extra, message in cases.items():
        args = ["investigate", "--history", history, "--no-evidence", *extra]
        result = run_main(args, env=fake_github.env())
        assert result.returncode == 2, (extra, result.stderr)
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and message in lines[0], (extra, lines)
