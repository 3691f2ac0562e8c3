"""Evidence end to end: artifacts on the fake GitHub -> download -> diff -> issue section."""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
from pathlib import Path
from typing import Any

import pytest

from conftest import REPO_ROOT
from fakegithub import FakeGitHub
from wheel_factory import make_artifact, make_wheel
from wheel_size.evidence.attach import attach_evidence
from wheel_size.evidence.collect import NightArtifact, collect_evidence
from wheel_size.github import RetryPolicy, connect
from wheel_size.github.port import PyGithubPort
from wheel_size.regressions.events import Event
from wheel_size.regressions.investigation import Candidate, Investigation
from wheel_size.regressions.issues.body import render_body
from wheel_size.regressions.ranking.classify import Classified
from wheel_size.regressions.ranking.evidence import LIKELY, NOT_CONFIRMED, Status, cross_variant
from wheel_size.regressions.window.commits import Commit
from wheel_size.regressions.window.compare import Night, Window
from wheel_size.series import SizePoint

CUDA = REPO_ROOT / "tests" / "data" / "cuda"
FAST = RetryPolicy(total=0, backoff=0.0, between_writes=0.0, timeout=10)
NAME = "manywheel-py3_12-cuda13_0"
TAG = "cp312-cp312-manylinux_2_28_x86_64"


def _artifact(tmp: Path, day: int, lib: Path) -> bytes:
    folder = tmp / f"d{day}"
    folder.mkdir()
    wheel = make_wheel(
        folder, "torch", f"2.10.0.dev2026010{day}+cu130", TAG,
        {"torch/__init__.py": b"", "torch/lib/libtorch_cuda.so": lib},
    )  # fmt: skip
    return make_artifact(folder / "artifact.zip", [wheel]).read_bytes()


@pytest.fixture
def nights(fake_github: FakeGitHub, tmp_path: Path) -> tuple[NightArtifact, NightArtifact, Any]:
    workflow = fake_github.add_repo("pytorch/pytorch").add_workflow(1, "nightly")
    runs = []
    for day, lib in ((1, CUDA / "libk_v1.so"), (2, CUDA / "libk_v1_more_kernels.so")):
        run = workflow.add_run(created_at=f"2026-01-0{day}T07:00:00Z")
        run.add_artifact(NAME, content=_artifact(tmp_path, day, lib))
        run.add_artifact("manywheel-py3_12-cpu", content=b"PK\x05\x06" + bytes(18))
        runs.append(run)
    return (
        NightArtifact(runs[0].id, NAME, "2026-01-01"),
        NightArtifact(runs[1].id, NAME, "2026-01-02"),
        runs,
    )


def _investigation(before: NightArtifact, after: NightArtifact) -> Investigation:
    day1, day2 = dt.date(2026, 1, 1), dt.date(2026, 1, 2)
    event = Event(
        "jump", NAME, day2,
        SizePoint(day1, NAME, 900_000_000, before.run_id, "h1", "b1", NAME),
        SizePoint(day2, NAME, 905_000_000, after.run_id, "h2", "b2", NAME),
    )  # fmt: skip
    kernels = Classified(
        Commit("c" * 40, "Add grouped GEMM instantiations (#101)"), ("cuda-kernels",), 80, 1
    )
    docs = Classified(Commit("d" * 40, "Fix typo in README"), ("python-only",), 10, 2)
    nights = Night("2026-01-01", "h1", "b1"), Night("2026-01-02", "h2", "b2")
    window = Window(*nights, "base", ("b1", "b2"), [kernels.commit, docs.commit], 2)
    return Investigation(
        repo="pytorch/pytorch",
        event=event,
        window=window,
        candidates=[
            Candidate(kernels, Status(None, "not assessed"), None, None),
            Candidate(docs, Status(NOT_CONFIRMED, "Python only"), None, None),
        ],
        reverts_removed=[],
        cross=cross_variant(NAME, {NAME: 5.0, "cpu": 0.0}),
        chart=[],
    )


def test_growth_spread_over_every_arch_supports_kernel_candidates(
    fake_github: FakeGitHub, nights: tuple[NightArtifact, NightArtifact, Any]
) -> None:
    before, after, _ = nights
    gh = PyGithubPort(connect(fake_github.token, fake_github.url, retry=FAST))
    evidence = collect_evidence(gh, "pytorch/pytorch", before, after)
    assert evidence.available, evidence.unavailable
    assert evidence.reading is not None
    assert evidence.reading.pattern == "kernel-instantiations"
    assert evidence.reading.archs_grown == ["sm_75", "sm_80"]
    assert evidence.reading.top_file == "torch/lib/libtorch_cuda.so"
    assert evidence.reading.sections == [".nv_fatbin"]
    assert evidence.reading.amount == evidence.reading.device_delta > 0
    inv = attach_evidence(_investigation(before, after), evidence)
    kernels, docs = inv.candidates
    assert kernels.status.status == LIKELY and "kernel instantiations" in kernels.status.evidence
    assert docs.status.status == NOT_CONFIRMED
    assert inv.evidence_json is not None
    stored: Any = inv.evidence_json["reading"]
    assert stored["pattern"] == "kernel-instantiations"
    # the JSON carries data (bytes, names), never the Markdown sentence
    assert stored["amount"] == evidence.reading.amount and "`" not in json.dumps(stored)
    assert "`" not in kernels.status.evidence and "torch/lib/libtorch_cuda.so" in (
        kernels.status.evidence
    )
    # its kind of change by the title the Labels column shows, not an internal key
    assert "which its changes (CUDA kernels / template instantiations" in kernels.status.evidence
    assert "cuda-kernels" not in kernels.status.evidence
    body = render_body(inv, repo_url="https://github.com/pytorch/pytorch")
    section = body.split("### Wheel contents", 1)[1]
    assert "new kernel instantiations" in section
    assert "| sm_80 | sass | `.nv_fatbin` |" in section
    assert "`torch/lib/libtorch_cuda.so` | changed |" in section


def test_expired_artifact_says_evidence_unavailable(
    fake_github: FakeGitHub, nights: tuple[NightArtifact, NightArtifact, Any]
) -> None:
    before, after, runs = nights
    for artifact in runs[0].artifacts:
        artifact.expired = True
    gh = PyGithubPort(connect(fake_github.token, fake_github.url, retry=FAST))
    evidence = collect_evidence(gh, "pytorch/pytorch", before, after)
    assert not evidence.available and evidence.unavailable and "expired" in evidence.unavailable
    inv = attach_evidence(_investigation(before, after), evidence)
    assert inv.candidates[0].status.status is None
    assert inv.evidence_markdown is not None
    assert inv.evidence_markdown.startswith("Evidence unavailable:")


def test_size_limit_and_missing_artifact(
    fake_github: FakeGitHub, nights: tuple[NightArtifact, NightArtifact, Any]
) -> None:
    before, after, _ = nights
    gh = PyGithubPort(connect(fake_github.token, fake_github.url, retry=FAST))
    small = collect_evidence(gh, "pytorch/pytorch", before, after, max_bytes=1000)
    assert small.unavailable and "download limit" in small.unavailable
    missing = dataclasses.replace(after, artifact="no-such-artifact")
    gone = collect_evidence(gh, "pytorch/pytorch", before, missing)
    assert gone.unavailable and "no artifact 'no-such-artifact'" in gone.unavailable
