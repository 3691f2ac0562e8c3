"""Which wheel the audit keeps of identical builds, which it uploads of one file name
built twice, and which jobs it says to disable (docs/audit-format.md, "Preferred keeper")."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema

from cli_runner import run_main
from conftest import REPO_ROOT
from wheel_factory import make_wheel

SCHEMA = json.loads((REPO_ROOT / "docs" / "audit-format.schema.json").read_text())
SO = REPO_ROOT / "tests" / "data" / "abi3" / "clean.abi3.so"


def _audit(*args: str) -> dict[str, Any]:
    result = run_main(["audit", *args, "--format", "json"])
    assert result.returncode == 0, result.stderr
    data: dict[str, Any] = json.loads(result.stdout)
    jsonschema.validate(data, SCHEMA)
    return data


def _pure_matrix(root: Path, jobs: list[str]) -> dict[str, str]:
    out = {}
    for job in jobs:
        (root / job).mkdir(parents=True)
        out[job] = str(make_wheel(root / job, "ao", "1.0", files={"ao/__init__.py": b"x = 1\n"}))
    return out


def test_most_general_job_is_kept_whatever_the_path_order(tmp_path: Path) -> None:
    jobs = [
        "a-macos-arm64",
        "b-windows-x64",
        "c-linux-aarch64",
        "d-linux-cuda12.8",
        "e-linux-x86_64",
        "f-linux-ppc64le",
    ]
    wheels = _pure_matrix(tmp_path / "artifacts", jobs)
    data = _audit(str(tmp_path / "artifacts"))
    (group,) = data["redundant_groups"]
    assert group["keep"] == wheels["e-linux-x86_64"]
    # the documented order: Linux x86-64, then other Linux CPUs, Windows, macOS, accelerator jobs
    order = [
        "e-linux-x86_64",
        "c-linux-aarch64",
        "f-linux-ppc64le",
        "b-windows-x64",
        "a-macos-arm64",
        "d-linux-cuda12.8",
    ]
    assert group["members"] == [wheels[j] for j in order]
    root = str(tmp_path / "artifacts")
    assert data["jobs_to_disable"] == [f"{root}/{j}" for j in sorted(jobs) if j != "e-linux-x86_64"]
    # an explicit preference wins, on the path or on the job name
    preferred = _audit(root, "--prefer", "*/b-windows-*")
    assert preferred["redundant_groups"][0]["keep"] == wheels["b-windows-x64"]


def test_unlabelled_wheel_beats_a_general_job(tmp_path: Path) -> None:
    (tmp_path / "linux-cpu").mkdir()
    (tmp_path / "zz-rocm-builder").mkdir()
    labelled = make_wheel(tmp_path / "linux-cpu", "ao", "1.0+cpu", files={"ao/a.py": b"a"})
    plain = make_wheel(tmp_path / "zz-rocm-builder", "ao", "1.0", files={"ao/a.py": b"a"})
    data = _audit(str(tmp_path))
    assert data["redundant_groups"][0]["keep"] == str(plain)
    verdicts = {v["wheel"]: v["verdict"] for v in data["verdicts"]}
    assert verdicts == {str(plain): "keep", str(labelled): "drop"}


def test_name_collision_gets_an_explicit_pick(tmp_path: Path) -> None:
    """Two jobs write the same abi3 wheel name with different bytes: one is picked to
    upload (the Linux CPU job over the CUDA job, by the keeper order), the other is to fix;
    with --prefer the other way round."""
    tag = "cp310-abi3-manylinux_2_28_x86_64"
    for job in ("linux-cpu", "linux-cuda"):
        (tmp_path / job).mkdir()
    cpu = make_wheel(
        tmp_path / "linux-cpu", "ao", "1.0", tag, {"ao/_C.abi3.so": SO, "ao/v.py": b"1"}
    )
    cuda = make_wheel(
        tmp_path / "linux-cuda", "ao", "1.0", tag, {"ao/_C.abi3.so": SO, "ao/v.py": b"2"}
    )
    data = _audit(str(tmp_path))
    (collision,) = data["name_collisions"]
    assert collision["filename"] == cpu.name
    assert collision["keep"] == str(cpu) and collision["members"] == [str(cpu), str(cuda)]
    verdicts = {v["wheel"]: v for v in data["verdicts"]}
    assert verdicts[str(cpu)]["verdict"] == "keep"
    assert verdicts[str(cuda)]["verdict"] == "fix"
    assert f"also built by {cpu}, the one picked to upload" in verdicts[str(cuda)]["reason"]
    jobs = {j["job"]: j["action"] for j in data["jobs"]}
    assert jobs == {str(tmp_path / "linux-cpu"): "keep", str(tmp_path / "linux-cuda"): "fix"}
    assert data["jobs_to_disable"] == []

    flipped = _audit(str(tmp_path), "--prefer", "*cuda*")
    assert flipped["name_collisions"][0]["keep"] == str(cuda)
    markdown = run_main(["audit", str(tmp_path), "--prefer", "*cuda*"]).stdout
    assert "### One file name, different bytes" in markdown
    assert f"- `{cpu.name}`: upload `{cuda}`; rename or disable `{cpu}`" in markdown


def test_collision_pick_avoids_a_broken_build(tmp_path: Path) -> None:
    """The general job's wheel has something to fix (a member missing from RECORD is
    simulated by a wheel without RECORD): the other job's wheel is picked."""
    tag = "cp310-abi3-manylinux_2_28_x86_64"
    for job in ("linux-cpu", "linux-cuda"):
        (tmp_path / job).mkdir()
    files = {"ao/_C.abi3.so": SO}
    broken = make_wheel(
        tmp_path / "linux-cpu", "ao", "1.0", tag, {**files, "ao/v.py": b"1"}, record=False
    )
    good = make_wheel(tmp_path / "linux-cuda", "ao", "1.0", tag, {**files, "ao/v.py": b"2"})
    data = _audit(str(tmp_path))
    assert data["name_collisions"][0]["keep"] == str(good)
    verdicts = {v["wheel"]: v["verdict"] for v in data["verdicts"]}
    assert verdicts == {str(good): "keep", str(broken): "fix"}
