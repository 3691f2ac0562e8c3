"""Kernel template families in the regression evidence: the worker diffs them, the issue names
the ones that moved, and a commit whose sources name a grown family gains a content reason."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

import pytest

from conftest import REPO_ROOT
from fakegithub import FakeGitHub
from wheel_factory import make_artifact, make_wheel
from wheel_size.evidence.attach import attach_evidence, evidence_markdown
from wheel_size.evidence.collect import (
    Evidence,
    NightArtifact,
    _decoded,
    _partial,
    _read,
    _Unavailable,
    collect_evidence,
)
from wheel_size.evidence.transfer import TransferError, decode_result
from wheel_size.evidence.worker import FAMILIES_PENDING
from wheel_size.evidence.worker import main as worker_main
from wheel_size.github import RetryPolicy, connect
from wheel_size.github.port import PyGithubPort
from wheel_size.regressions.events import Event
from wheel_size.regressions.investigation import Candidate, Investigation
from wheel_size.regressions.issues.body import render_body
from wheel_size.regressions.ranking.evidence import Status, cross_variant
from wheel_size.regressions.ranking.fingerprint import fingerprint
from wheel_size.regressions.ranking.rank import rank_commits
from wheel_size.regressions.window.commits import Commit, files_from_api
from wheel_size.regressions.window.compare import Night, Window
from wheel_size.series import SizePoint

CUDA = REPO_ROOT / "tests" / "data" / "cuda"
FAST = RetryPolicy(total=0, backoff=0.0, between_writes=0.0, timeout=10)
NAME = "manywheel-py3_12-cuda13_0"
TAG = "cp312-cp312-manylinux_2_28_x86_64"


def _artifact(tmp: Path, day: int, files: dict[str, bytes]) -> Path:
    folder = tmp / f"d{day}"
    folder.mkdir()
    wheel = make_wheel(folder, "torch", f"2.10.0.dev2026010{day}+cu130", TAG, files)
    return make_artifact(folder / "artifact.zip", [wheel])


def _libs(lib: Path) -> dict[str, bytes]:
    return {"torch/__init__.py": b"", "torch/lib/libtorch_cuda.so": lib.read_bytes()}


@pytest.fixture
def nights(fake_github: FakeGitHub, tmp_path: Path) -> tuple[NightArtifact, NightArtifact]:
    workflow = fake_github.add_repo("pytorch/pytorch").add_workflow(1, "nightly")
    runs = []
    for day, lib in ((1, CUDA / "libk_v1.so"), (2, CUDA / "libk_v1_more_kernels.so")):
        run = workflow.add_run(created_at=f"2026-01-0{day}T07:00:00Z")
        run.add_artifact(NAME, content=_artifact(tmp_path, day, _libs(lib)).read_bytes())
        runs.append(run)
    return (
        NightArtifact(runs[0].id, NAME, "2026-01-01"),
        NightArtifact(runs[1].id, NAME, "2026-01-02"),
    )


def _commit(sha: str, title: str, path: str, patch: str = "") -> Commit:
    entry = {"filename": path, "status": "modified", "additions": 40, "patch": patch}
    return Commit(sha * 40, f"{title} (#1)", files=files_from_api([entry]))


def _investigation(before: NightArtifact, after: NightArtifact, commits: list[Commit]) -> Any:
    day1, day2 = dt.date(2026, 1, 1), dt.date(2026, 1, 2)
    event = Event(
        "jump", NAME, day2,
        SizePoint(day1, NAME, 900_000_000, before.run_id, "h1", "b1", NAME),
        SizePoint(day2, NAME, 905_000_000, after.run_id, "h2", "b2", NAME),
    )  # fmt: skip
    fp = fingerprint(NAME, {NAME: 5.0, "manywheel-py3_12-cpu": 0.0})
    ranked = rank_commits(commits, fp)
    nights = Night("2026-01-01", "h1", "b1"), Night("2026-01-02", "h2", "b2")
    return Investigation(
        repo="pytorch/pytorch",
        event=event,
        window=Window(*nights, "base", ("b1", "b2"), commits, len(commits)),
        candidates=[Candidate(r, Status(None, "not assessed"), None, None) for r in ranked],
        reverts_removed=[],
        cross=cross_variant(NAME, {NAME: 5.0, "manywheel-py3_12-cpu": 0.0}),
        chart=[],
        fingerprint=fp,
    )


def test_grown_family_is_named_in_the_issue_and_gives_the_matching_commit_a_reason(
    fake_github: FakeGitHub, nights: tuple[NightArtifact, NightArtifact]
) -> None:
    gh = PyGithubPort(connect(fake_github.token, fake_github.url, retry=FAST))
    before, after = nights
    evidence = collect_evidence(gh, "pytorch/pytorch", before, after)
    assert evidence.available, evidence.unavailable
    assert evidence.families is not None and evidence.families_note is None
    (axpy,) = evidence.families.grown
    assert axpy.name == "axpy<…>" and axpy.added == 4 and axpy.old_bytes == 0
    assert axpy.archs == ["compute_80", "sm_75", "sm_80"] and axpy.new_bytes > 0

    named_file = _commit("a", "Vectorise the kernels", "aten/src/ATen/native/cuda/Axpy.cuh")
    named_line = _commit(
        "b", "Add launch helper", "aten/src/ATen/native/cuda/Blas.cu",
        "@@ -1 +1,2 @@\n+template __global__ void axpy<double>(double, const double*, double*);\n",
    )  # fmt: skip
    generic = _commit("c", "Tidy the launcher", "aten/src/ATen/native/cuda/Kernel.cu")
    python = _commit("d", "Python axpy", "torch/axpy.py", "@@ -1 +1 @@\n+def axpy(a): pass\n")
    inv = _investigation(before, after, [generic, python, named_file, named_line])
    attach_evidence(inv, evidence)
    inv.apply_content()

    body = render_body(inv, repo_url="https://github.com/pytorch/pytorch")
    size = "+9.7 KB"  # 9,938 bytes of the four new instantiations, through units.py
    assert f"- 4 new instantiations of `axpy<…>` × 3 architectures = {size}" in body
    why = {c.classified.commit.sha[0]: c.why for c in inv.candidates}
    reason = "the kernel family axpy<…> grew by 9.7 KB in 3 architectures"
    assert f"{reason}, and it changes Axpy.cuh" in why["a"]
    assert f"{reason}, and its changes to Blas.cu name axpy" in why["b"]
    assert "kernel family" not in why["c"] and "kernel family" not in why["d"]
    assert {c.classified.commit.sha[0] for c in inv.candidates[:2]} == {"a", "b"}
    assert inv.evidence_json is not None
    stored = inv.evidence_json["families"]
    assert stored["grown"][0]["name"] == "axpy<…>" and stored["shrunk"] == []


def test_no_gpu_code_no_family_diff(tmp_path: Path) -> None:
    old = _artifact(tmp_path, 1, {"torch/__init__.py": b"a"})
    new = _artifact(tmp_path, 2, {"torch/__init__.py": b"a" * 5000})
    assert worker_main([str(old), str(new), str(tmp_path / "r.json")]) == 0
    result = json.loads((tmp_path / "r.json").read_text())["result"]
    assert result["families"] is None and result["families_note"] is None


def _result(tmp_path: Path) -> dict[str, Any]:
    old = _artifact(tmp_path, 1, _libs(CUDA / "libk_v1.so"))
    new = _artifact(tmp_path, 2, _libs(CUDA / "libk_v1_more_kernels.so"))
    assert worker_main([str(old), str(new), str(tmp_path / "r.json")]) == 0
    data: dict[str, Any] = json.loads((tmp_path / "r.json").read_text())
    assert isinstance(data["result"]["families"], dict)
    return data


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda f: f.__setitem__("grown", "axpy"), r"families\.grown: not a list"),
        (lambda f: f["grown"][0].__setitem__("new_bytes", "9"), r"grown\[0\]\.new_bytes: not int"),
        (lambda f: f["grown"][0].pop("archs"), r"grown\[0\]: archs missing"),
        (lambda f: f["grown"][0].__setitem__("added", -1), "negative count"),
        (lambda f: f["grown"][0].__setitem__("new_bytes", 0), "wrong direction"),
        (lambda f: f.__setitem__("grown", f["grown"] * 65), "too many rows"),
    ],
)
def test_a_malformed_families_field_is_refused(tmp_path: Path, change: Any, message: str) -> None:
    data = _result(tmp_path)
    change(data["result"]["families"])
    with pytest.raises(TransferError, match=message):
        decode_result(data["result"])


def test_malformed_families_from_the_worker_make_the_evidence_unavailable(
    tmp_path: Path,
) -> None:
    """A worker result with a bad families field, as the nightly reads it back: the evidence
    is unavailable with the field named, and the issue section says so; nothing crashes."""
    data = _result(tmp_path)
    data["result"]["families"]["grown"][0]["archs"] = "sm_80"
    path = tmp_path / "tampered.json"
    path.write_text(json.dumps(data))
    with pytest.raises(_Unavailable) as caught:
        _decoded(_read(path))
    reason = str(caught.value)
    assert reason == ("the wheel diff's result is malformed: families.grown[0].archs: not a list")
    ev = Evidence(NightArtifact(1, NAME, "d1"), NightArtifact(2, NAME, "d2"), unavailable=reason)
    assert evidence_markdown(ev).startswith("Evidence unavailable: the wheel diff's result is")


def test_a_worker_stopped_during_the_family_diff_keeps_the_file_evidence(tmp_path: Path) -> None:
    data = _result(tmp_path)
    data["result"]["families"], data["result"]["families_note"] = None, FAMILIES_PENDING
    path = tmp_path / "partial.json"
    path.write_text(json.dumps(data))
    kept = _partial(path, "the wheel diff did not finish within the evidence time budget (5 s)")
    got = decode_result(kept["result"])
    assert got.families is None and got.report.comparisons
    assert got.families_note == (
        f"{FAMILIES_PENDING}: the wheel diff did not finish within the evidence time budget (5 s)"
    )
    ev = Evidence(NightArtifact(1, NAME, "d1"), NightArtifact(2, NAME, "d2"), got.report)
    ev.reading, ev.families_note = got.reading, got.families_note
    assert "Kernel families: the kernel family diff did not finish: the wheel diff" in (
        evidence_markdown(ev)
    )
