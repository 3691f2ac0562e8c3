"""``investigate`` explains drops as it explains growth: a real git window behind the fake
GitHub, a night on which only the CUDA 12.x wheels shrank."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

from cli_runner import run_main
from fakegithub import FakeGitHub
from history_factory import run
from regression_world import Change, World, build_world
from wheel_size.history import DirectoryStore
from wheel_size.regressions.document import (
    CandidateDocument,
    FingerprintDocument,
    InvestigationDocument,
    ReasonDocument,
)

BUILD_CUDA = """case ${CUDA_VERSION} in
  12.*)
    DEPS_LIST+=("/usr/local/cuda/lib64/libcudart.so.12")
    DEPS_LIST+=("/usr/local/cuda/lib64/libcusparseLt.so.0")
    ;;
esac
"""


def make_world(tmp_path: Path) -> World:
    changes = [Change(f"base {i}", {"README.md": f"{i}\n"}) for i in range(2)]
    changes += [Change("Add the build script", {".ci/manywheel/build_cuda.sh": BUILD_CUDA})]
    changes += [
        Change("[ROCm] Stop bundling rocm-smi (#10)", {".ci/manywheel/build_rocm.sh": "x\n"}),
        Change(
            "[CI] Stop bundling cuSPARSELt in CUDA 12.x wheels (#170114)",
            {".ci/manywheel/build_cuda.sh": BUILD_CUDA.replace(
                '    DEPS_LIST+=("/usr/local/cuda/lib64/libcusparseLt.so.0")\n', "")},
        ),
        Change("[CUDA] Add cuSPARSELt tests (#12)", {"test/test_sparse.py": "t\n"}),
        Change("[JIT] Delete unused passes (#13)", {"torch/csrc/jit/passes/p.cpp": ""}),
    ]  # fmt: skip
    return build_world(
        tmp_path / "git", changes, [("2026-01-05", 2, None), ("2026-01-06", 6, None)]
    )


def store_history(tmp_path: Path, w: World) -> Path:
    nights = {
        "2026-01-04": {"cpu": 175.0, "cuda12_6": 800.0, "cuda12_8": 870.0, "cuda13_0": 590.0},
        "2026-01-05": {"cpu": 175.0, "cuda12_6": 800.0, "cuda12_8": 870.2, "cuda13_0": 590.0},
        "2026-01-06": {"cpu": 175.0, "cuda12_6": 770.5, "cuda12_8": 840.5, "cuda13_0": 590.0},
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


def test_a_drop_is_explained_and_ranked(tmp_path: Path, fake_github: FakeGitHub) -> None:
    w = make_world(tmp_path)
    fake_github.add_repo("pytorch/pytorch", git_dir=w.path)
    history = tmp_path / "history"
    store_history(tmp_path, w)
    args = ["investigate", "--history", str(history), "--date", "2026-01-06", "--no-evidence"]
    result = run_main([*args, "--variant", "cuda12_8", "--format", "json"], env=fake_github.env())
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["delta_mb"] == -29.7
    assert data["fingerprint"]["direction"] == "shrink"
    assert data["fingerprint"]["moved"] == ["cuda12_6", "cuda12_8"]
    assert "for growth" not in data["cross_variant_reading"]
    assert "CUDA 12.6, 12.8 shrank" in data["cross_variant_reading"]
    first = data["candidates"][0]
    assert first["sha"] == w.main[4], [c["title"] for c in data["candidates"]]
    assert "reach: " in first["why"] and first["reasons"]
    # The document is the typed one, key for key (regressions/document.py).
    assert set(data) == set(InvestigationDocument.__annotations__)
    assert set(first) == set(CandidateDocument.__annotations__)
    assert set(first["reasons"][0]) == set(ReasonDocument.__annotations__)
    assert set(data["fingerprint"]) == set(FingerprintDocument.__annotations__)
    assert data["candidates"][-1]["title"] == "[CUDA] Add cuSPARSELt tests (#12)"

    md = run_main([*args, "--variant", "cuda12_8"], env=fake_github.env())
    assert md.returncode == 0, md.stderr
    assert md.stdout.startswith("## `manywheel-py3_12-cuda12_8` shrank by 29.7 MB")
    assert "grew by" not in md.stdout and "-29.7" not in md.stdout.splitlines()[0]
    assert "| # | Commit | PR | Title | Why | Labels | Status |" in md.stdout
    assert "Ranked by the evidence for this shrink" in md.stdout


def test_a_night_without_a_jump_ranks_nothing_and_names_what_moved(
    tmp_path: Path, fake_github: FakeGitHub
) -> None:
    """cuda13_0 did not move that night: no candidate is ranked, no status given, and the
    variants that did move are named (issue 18: a -0.08 MB night got a LIKELY culprit)."""
    w = make_world(tmp_path)
    fake_github.add_repo("pytorch/pytorch", git_dir=w.path)
    history = store_history(tmp_path, w)
    args = ["investigate", "--history", str(history), "--date", "2026-01-06", "--no-evidence"]
    result = run_main([*args, "--variant", "cuda13_0", "--format", "json"], env=fake_github.env())
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["no_jump"] is True and data["candidates"] == []
    assert data["fingerprint"]["direction"] == "none"
    assert "cuda12_6 (-29.50 MB)" in data["cross_variant_reading"]
    assert "cuda12_8 (-29.70 MB)" in data["cross_variant_reading"]
    md = run_main([*args, "--variant", "cuda13_0"], env=fake_github.env())
    assert md.returncode == 0, md.stderr
    assert md.stdout.startswith("## `manywheel-py3_12-cuda13_0` did not jump on 2026-01-06")
    assert "LIKELY" not in md.stdout and "| # | Commit |" not in md.stdout
    assert "grew by" not in md.stdout and "shrank by" not in md.stdout
    # issue 29: the night's window is still listed, unranked, in the order it landed
    titles = [c["title"] for c in data["unranked_commits"]]
    assert titles and "[CUDA] Add cuSPARSELt tests (#12)" in titles
    assert f"The window's {len(titles)} commit" in md.stdout and "unranked" in md.stdout
    assert "| Commit | Title |" in md.stdout
    assert "Add cuSPARSELt tests" in md.stdout
    # said once, under a heading that fits a night without a jump
    assert "### Size around that night" in md.stdout and "around the jump" not in md.stdout
    reading = data["cross_variant_reading"]
    assert md.stdout.count(reading) == 1, md.stdout


def test_a_bad_reach_table_is_one_line_naming_the_file_and_the_key(
    tmp_path: Path, fake_github: FakeGitHub
) -> None:
    w = make_world(tmp_path)
    fake_github.add_repo("pytorch/pytorch", git_dir=w.path)
    history = store_history(tmp_path, w)
    table = tmp_path / "reach.yaml"
    table.write_text("submodules:\n  cutlass: {kind: cuda}\nhipify: 1\n", encoding="utf-8")
    out = tmp_path / "out.md"
    args = ["investigate", "--history", str(history), "--date", "2026-01-06", "--no-evidence"]
    result = run_main(
        [*args, "--variant", "cuda12_8", "--reach-table", str(table), "-o", str(out)],
        env=fake_github.env(),
    )
    assert result.returncode != 0
    assert result.stderr.strip().count("\n") == 0, result.stderr
    assert str(table) in result.stderr and "hipify" in result.stderr
    assert not out.exists()
    assert not fake_github.requests  # refused before any request
