"""Evidence is best effort: a hostile or broken artifact, an expired one, a stalled download
or any failure inside the step gives "Evidence unavailable: <reason>", never a failed
nightly. The diff runs in a worker process with a memory budget and a time budget."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

import pytest
from hostile_artifacts import bad_crc_artifact, bomb_artifact

from fakegithub import FakeGitHub
from wheel_factory import make_artifact, make_wheel
from wheel_size.diff.model import FileDiff, Totals, WheelDiff
from wheel_size.diff.run import DiffReport
from wheel_size.evidence.attach import evidence_markdown
from wheel_size.evidence.collect import (
    Evidence,
    EvidenceBudget,
    NightArtifact,
    collect_evidence,
)
from wheel_size.evidence.reading import read_growth
from wheel_size.evidence.sandbox import run_limited
from wheel_size.evidence.transfer import TransferError, decode_result, encode_result
from wheel_size.github import RetryPolicy, connect
from wheel_size.github.port import PyGithubPort

FAST = RetryPolicy(total=0, backoff=0.0, between_writes=0.0, timeout=10)
NAME = "manywheel-py3_12-cuda12_8"
TAG = "cp312-cp312-manylinux_2_28_x86_64"
# Small enough that a 256 MiB bomb cannot fit, ample for a real diff of small wheels.
TIGHT_MEMORY = 128 << 20


class FakeClock:
    """Time that passes only when a test says so: no budget here depends on machine load."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


def _good(folder: Path, version: str) -> bytes:
    folder.mkdir(parents=True, exist_ok=True)
    files = {"torch/__init__.py": b"", "torch/lib/libbomb.so": b"\x7fELF" + bytes(8)}
    wheel = make_wheel(folder, "torch", version, TAG, files)
    return make_artifact(folder / "artifact.zip", [wheel]).read_bytes()


def _hostile(kind: str, folder: Path) -> bytes:
    version = "2.10.0.dev20260102+cu128"
    if kind == "bzip2 bomb, size lie":
        return bomb_artifact(folder, version, inflated_mb=256, lie=True).read_bytes()
    if kind == "bzip2 bomb, declared":
        return bomb_artifact(folder, version, inflated_mb=256, lie=False).read_bytes()
    if kind == "bad CRC":
        return bad_crc_artifact(folder, version).read_bytes()
    if kind == "not a zip":
        return b"PK\x03\x04 this is not a zip archive" * 10
    raise AssertionError(kind)


# kind -> what the reason says (either before or after the archive reader refuses bzip2)
HOSTILE = {
    "bzip2 bomb, size lie": r"memory budget of 128 MB|bzip2|compression|method",
    "bzip2 bomb, declared": r"zip bomb|bzip2|compression|method|memory budget",
    "bad CRC": r"CRC",
    "not a zip": r"not a zip|zip archive|central directory|BadZipFile",
}


def _nights(fake: FakeGitHub, old: bytes, new: bytes) -> tuple[NightArtifact, NightArtifact]:
    workflow = fake.add_repo("pytorch/pytorch").add_workflow(1, "nightly")
    nights = []
    for day, content in ((1, old), (2, new)):
        run = workflow.add_run(created_at=f"2026-01-0{day}T07:00:00Z")
        run.add_artifact(NAME, content=content)
        nights.append(NightArtifact(run.id, NAME, f"2026-01-0{day}"))
    return nights[0], nights[1]


@pytest.mark.parametrize("kind", list(HOSTILE))
def test_hostile_artifact_makes_evidence_unavailable(
    fake_github: FakeGitHub, tmp_path: Path, kind: str
) -> None:
    before, after = _nights(
        fake_github,
        _good(tmp_path / "old", "2.10.0.dev20260101+cu128"),
        _hostile(kind, tmp_path / "new"),
    )
    gh = PyGithubPort(connect(fake_github.token, fake_github.url, retry=FAST))
    # a memory budget only: the time a loaded machine takes to get here is irrelevant
    budget = EvidenceBudget.starting_now(TIGHT_MEMORY, None)
    evidence = collect_evidence(gh, "pytorch/pytorch", before, after, budget=budget)
    assert not evidence.available
    reason = evidence.unavailable or ""
    assert re.search(HOSTILE[kind], reason), reason
    assert "wheel-size-evidence-" not in reason and "\n" not in reason  # no scratch paths
    section = evidence_markdown(evidence)
    assert section.strip().startswith("Evidence unavailable: ")


def test_the_memory_budget_holds_the_bomb_not_the_caller(tmp_path: Path) -> None:
    """Without the archive reader's own refusal the lying bomb inflates 256 MiB in one read:
    the worker hits its address-space limit and exits; the caller only sees the outcome."""
    old = tmp_path / "old.zip"
    old.write_bytes(_good(tmp_path / "o", "2.10.0.dev20260101+cu128"))
    new = bomb_artifact(tmp_path / "n", "2.10.0.dev20260102+cu128", inflated_mb=256, lie=True)
    hog = "import wheel_size.evidence.worker as w; w._limit_memory(); bytearray(1 << 30)"
    argv = [sys.executable, "-c", hog]
    outcome = run_limited(argv, workdir=tmp_path / "w1", memory_bytes=TIGHT_MEMORY, timeout=120)
    assert outcome.kind == "memory"
    # the same through the real worker, whatever the archive reader does with bzip2 now
    from wheel_size.evidence.sandbox import worker_argv

    result = tmp_path / "w2" / "result.json"
    outcome = run_limited(worker_argv(old, new, result), workdir=tmp_path / "w2",
                          memory_bytes=TIGHT_MEMORY, timeout=300)  # fmt: skip
    assert outcome.kind == "memory" or (
        outcome.kind == "ok" and "unavailable" in result.read_text()
    )


def test_timeout_kills_the_whole_process_group(tmp_path: Path) -> None:
    pid_file = tmp_path / "grandchild.pid"
    code = (
        "import subprocess, sys, time; "
        "p = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(600)']); "
        f"open({str(pid_file)!r}, 'w').write(str(p.pid)); time.sleep(600)"
    )
    outcome = run_limited([sys.executable, "-c", code], workdir=tmp_path / "w",
                          memory_bytes=None, timeout=5)  # fmt: skip
    assert outcome.kind == "timeout"
    if pid_file.exists() and pid_file.read_text():  # the grandchild had started
        assert _dies(Path(f"/proc/{pid_file.read_text()}/status")), "the grandchild lives on"


def _dies(status: Path, patience: float = 60.0) -> bool:
    """True once the process of ``status`` is gone or a zombie. SIGKILL is delivered at
    once but a loaded machine may take a moment to tear the process down: poll for that
    event (patience is generous), never judge the first look."""
    import time

    deadline = time.monotonic() + patience
    while True:
        try:
            if "State:\tZ" in status.read_text():
                return True
        except FileNotFoundError:
            return True
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)


def test_time_budget_covers_a_stalled_download(fake_github: FakeGitHub, tmp_path: Path) -> None:
    before, after = _nights(
        fake_github,
        _good(tmp_path / "old", "2.10.0.dev20260101+cu128"),
        _good(tmp_path / "new", "2.10.0.dev20260102+cu128"),
    )
    fake_github.fail("GET", r"/zip$", status=None, delay=8, times=None)  # a storage host stall
    gh = PyGithubPort(connect(fake_github.token, fake_github.url, retry=FAST))
    clock = FakeClock()  # the budget's clock stands still: the stall alone uses it up
    budget = EvidenceBudget.starting_now(None, 2.0, clock=clock)
    evidence = collect_evidence(gh, "pytorch/pytorch", before, after, budget=budget)
    assert evidence.unavailable is not None
    assert "within the evidence time budget (2 s)" in evidence.unavailable
    # the budget is shared: once its time has passed, a second issue gets no time at all
    clock.advance(2.5)
    again = collect_evidence(gh, "pytorch/pytorch", before, after, budget=budget)
    assert again.unavailable is not None and "ran out before" in again.unavailable


def test_any_exception_inside_the_step_is_a_reason(tmp_path: Path) -> None:
    night = NightArtifact(1, NAME, "2026-01-01")
    evidence = collect_evidence(object(), "o/r", night, night)  # type: ignore[arg-type]
    assert evidence.unavailable is not None
    assert evidence.unavailable.startswith("the evidence step failed: AttributeError")


def test_worker_result_is_trimmed_but_counts_what_it_left_out() -> None:
    files = [FileDiff(f"torch/f{i}.py", "added", new_bytes=i, new_installed=i) for i in range(700)]
    diff = WheelDiff("old.whl", "new.whl", Totals(0, 1, 0, sum(range(700))), files)
    report = DiffReport(comparisons=[diff])
    data: Any = encode_result(report, read_growth(report.comparisons))
    got = decode_result(data)
    back, reading, omitted = got.report, got.reading, got.omitted
    assert got.families is None and got.families_note is None
    assert omitted == [200] and len(back.comparisons[0].files) == 500
    assert reading.pattern == read_growth(report.comparisons).pattern
    ev = Evidence(NightArtifact(1, "a", "d1"), NightArtifact(2, "a", "d2"), back, reading)
    ev.files_omitted = omitted
    assert "… 694 more files" in evidence_markdown(ev)
    data["comparisons"][0]["diff"]["files"][3]["gpu"] = "no"
    with pytest.raises(TransferError, match=r"comparisons\[0\]\.files\[3\]\.gpu: not a list"):
        decode_result(data)
