"""Installed size collected by the nightly (issue 34, point 1), against the fake GitHub: each
new artifact's wheel directory read by ranged requests to the storage host, the sum stored
beside the download size and equal to ``unzip -l``'s total; an artifact that cannot be
measured is one warning line and the rest of the night is stored."""

from __future__ import annotations

import datetime as dt
import json
import zipfile
from pathlib import Path

import jsonschema

from conftest import REPO_ROOT
from fakegithub import FakeGitHub
from installed_fixtures import artifact_bytes, make_wheel, unzip_total
from nightly_world import WORKFLOW_ID, add_world
from wheel_size.collect import WorkflowSource
from wheel_size.collect.installed import InstalledOptions
from wheel_size.dates import DateRange
from wheel_size.github.client import RetryPolicy, connect
from wheel_size.github.port import PyGithubPort
from wheel_size.history import DirectoryStore
from wheel_size.track import TrackOptions, track

D = dt.date(2025, 10, 1)
SOURCE = WorkflowSource("pytorch/pytorch", str(WORKFLOW_ID), "nightly")
SCHEMA = json.loads((REPO_ROOT / "docs" / "history-format.schema.json").read_text())


def _night(fake: FakeGitHub, artifacts: dict[str, bytes]) -> None:
    wf = add_world(fake)
    run = wf.add_run(
        created_at=f"{D}T07:30:00Z",
        head_sha="a" * 40,
        head_branch="nightly",
        message=f"{D} nightly release ({'b' * 40})",
        conclusion="success",
    )
    for name, content in artifacts.items():
        run.add_artifact(name, content=content, created_at=f"{D}T09:00:00Z")


def test_installed_size_is_stored_beside_download_size(
    fake_github: FakeGitHub, tmp_path: Path
) -> None:
    cpu = make_wheel(tmp_path / "torch-2.10-cp312-cp312-linux_x86_64.whl", "torch", files=10)
    cuda = make_wheel(tmp_path / "torch-2.10+cu128-cp312-linux_x86_64.whl", "torch", 14, 3)
    lying = bytearray(artifact_bytes([cpu], zipfile.ZIP_STORED))
    cd = int.from_bytes(lying[lying.rfind(b"PK\x05\x06") + 16 :][:4], "little")
    lying[cd + 24 : cd + 28] = (10**9).to_bytes(4, "little")  # the wheel member's size lies
    _night(
        fake_github,
        {
            "manywheel-py3_12-cpu": artifact_bytes([cpu], zipfile.ZIP_STORED),
            "manywheel-py3_12-cuda12_8": artifact_bytes([cuda], zipfile.ZIP_DEFLATED),
            "manywheel-py3_12-rocm7_0": bytes(lying),
            "test-reports": artifact_bytes([], zipfile.ZIP_STORED),
        },
    )
    gh = PyGithubPort(connect(fake_github.token, fake_github.url, retry=RetryPolicy(total=0)))
    store = DirectoryStore(tmp_path / "h")
    options = TrackOptions(
        SOURCE, periods=[DateRange(D, D)], variants=("cpu",), installed=InstalledOptions()
    )
    result = track(store, options, github=gh, today=D)

    (path,) = (store.root / "runs").rglob("*.json")
    record = json.loads(path.read_text())
    jsonschema.validate(record, SCHEMA)
    by_name = {a["name"]: a for a in record["artifacts"]}
    assert by_name["manywheel-py3_12-cpu"]["installed_bytes"] == unzip_total(cpu)
    assert by_name["manywheel-py3_12-cuda12_8"]["installed_bytes"] == unzip_total(cuda)
    assert "installed_bytes" not in by_name["test-reports"]  # no wheel in it
    assert "installed_bytes" not in by_name["manywheel-py3_12-rocm7_0"]
    (line,) = [w for w in result.warnings if "installed size" in w]
    assert "manywheel-py3_12-rocm7_0" in line and "\n" not in line
    # ranged requests: stored wheel 3 (the artifact's tail, the member's local header, the
    # wheel's tail); deflated 3 (tail, header, one streamed read of the member); the lying
    # directory 1; the artifact without a wheel 1
    assert fake_github.count(path_regex=r"/_blobs/") == 8


def test_an_expired_signed_url_is_asked_for_again(fake_github: FakeGitHub, tmp_path: Path) -> None:
    wheel = make_wheel(tmp_path / "torch-2.10-cp312-cp312-linux_x86_64.whl", "torch", files=4)
    _night(fake_github, {"manywheel-py3_12-cpu": artifact_bytes([wheel], zipfile.ZIP_STORED)})
    fake_github.fail("GET", r"/_blobs/", status=403, times=1, skip=1)  # the second read
    gh = PyGithubPort(connect(fake_github.token, fake_github.url, retry=RetryPolicy(total=0)))
    store = DirectoryStore(tmp_path / "h")
    options = TrackOptions(
        SOURCE, periods=[DateRange(D, D)], variants=("cpu",), installed=InstalledOptions()
    )
    result = track(store, options, github=gh, today=D)
    assert not [w for w in result.warnings if "installed size" in w]
    (path,) = (store.root / "runs").rglob("*.json")
    (artifact,) = json.loads(path.read_text())["artifacts"]
    assert artifact["installed_bytes"] == unzip_total(wheel)
    assert fake_github.count(path_regex=r"/artifacts/\d+/zip") == 2  # the URL asked twice


def test_collect_for_a_fan_in_job_reads_installed_size_too(
    fake_github: FakeGitHub, tmp_path: Path
) -> None:
    from cli_runner import run_main

    wheel = make_wheel(tmp_path / "torch-2.10-cp312-cp312-linux_x86_64.whl", "torch", files=7)
    _night(fake_github, {"manywheel-py3_12-cpu": artifact_bytes([wheel], zipfile.ZIP_DEFLATED)})
    out = tmp_path / "oct.json"
    args = ["collect", "--repo", "pytorch/pytorch", "--workflow", str(WORKFLOW_ID),
            "--date", str(D), "--out", str(out), "--installed-size"]  # fmt: skip
    res = run_main(args, env=fake_github.env())
    assert res.returncode == 0, res.stderr
    (run,) = json.loads(out.read_text())["runs"]
    assert run["artifacts"][0]["installed_bytes"] == unzip_total(wheel)
