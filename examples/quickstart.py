#!/usr/bin/env python3
"""The nightly job, offline: ``wheel-size track --create-issues`` on a recorded month.

October 2025 of ``examples/history`` (pytorch/pytorch's nightly artifact sizes) is served on
127.0.0.1 by the fake GitHub the tests use (tests/fakegithub: the REST API with GitHub's JSON,
pagination and errors), with a small git history behind the nightlies' base commits. The job
then runs exactly as in a workflow: it collects the month's runs, stores them, writes the step
summary and opens one issue per size jump with the candidate commits ranked. This prints the
step summary and the first issue it opened; nothing leaves the machine. It uses the documented
defaults (a 1 MB threshold, branch ``nightly``), as a workflow that sets nothing would.

    python3 examples/quickstart.py [--keep DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))  # the fake GitHub and the git-history builder

from fakegithub import FakeGitHub  # noqa: E402
from regression_world import Change, build_world  # noqa: E402

MONTH = "2025-10"
VARIANT = "cuda12_8"
# What the git history says happened before each jump night of cuda12_8 (examples/README.md).
CHANGES = {
    "2025-10-11": Change(
        "Build CUDA kernels with -O3 instead of -O2 (#164894)", {"cmake/public/cuda.cmake": "O3\n"}
    ),
    "2025-10-18": Change(
        "Add sm_100 instantiations of the FlashAttention kernels (#165210)",
        {"aten/src/ATen/native/transformers/cuda/flash_attn/sm100.cu": "k\n"},
    ),
    "2025-10-30": Change(
        "Bump third_party/cutlass to 4.2 (#166001)", gitlinks={"third_party/cutlass": "c" * 40}
    ),
}


def _records() -> list[dict[str, object]]:
    runs = (ROOT / "examples" / "history" / "runs" / MONTH[:4] / MONTH[5:]).rglob("*.json")
    return sorted((json.loads(p.read_text()) for p in runs), key=lambda r: str(r["created_at"]))


def _serve(fake: FakeGitHub, git_dir: Path) -> int:
    """The month's runs on the fake, each nightly based on a commit of a real git history."""
    records = _records()
    dates = sorted({str(r["date"]) for r in records})
    changes = [Change("Initial commit", {"README.md": "pytorch\n"})]
    base_of: dict[str, int] = {}
    for date in dates:
        if date in CHANGES:
            changes.append(CHANGES[date])
        changes.append(Change(f"Daily docs update {date} (#{160000 + len(changes)})",
                              {"docs/daily.md": f"{date}\n"}))  # fmt: skip
        base_of[date] = len(changes) - 1
    world = build_world(git_dir, changes, [(d, base_of[d], None) for d in dates])
    repo = fake.add_repo("pytorch/pytorch", git_dir=git_dir)
    workflow = repo.add_workflow(
        21257348,
        "linux-binary-manywheel",
        ".github/workflows/generated-linux-binary-manywheel-nightly.yml",
    )
    for record in records:
        date = str(record["date"])
        run = workflow.add_run(
            created_at=str(record["created_at"]),
            head_sha=world.nightly[date],
            message=f"{date} nightly release ({world.bases[date]})",
            conclusion=str(record["conclusion"]),
        )
        for artifact in record["artifacts"]:  # type: ignore[attr-defined]
            run.add_artifact(
                artifact["name"], size_in_bytes=artifact["size_in_bytes"], expired=True
            )
    return workflow.id


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", type=Path, help="keep the history and report in DIR")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="wheel-size-quickstart-") as tmp, FakeGitHub() as fake:
        work = args.keep or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        workflow = _serve(fake, Path(tmp) / "pytorch.git")
        summary = work / "step-summary.md"
        summary.write_text("")
        env = {
            **os.environ,
            **fake.env(),
            "GITHUB_ACTIONS": "true",  # as in a workflow: write the step summary
            "GITHUB_REPOSITORY": "pytorch/pytorch",
            "GITHUB_STEP_SUMMARY": str(summary),
            # GitHub asks for a second between writes; the fake on loopback does not
            "WHEEL_SIZE_GITHUB_RETRY": "between_writes=0",
        }
        done = subprocess.run(
            [sys.executable, "-m", "wheel_size", "track", "--workflow", str(workflow),
             "--month", "October 2025", "--variant", VARIANT,
             "--history", str(work / "history"), "--create-issues", "--no-evidence",
             "--output", str(work / "report.md")],
            env=env, cwd=work, capture_output=True, text=True, check=False,
        )  # fmt: skip
        sys.stderr.write(done.stderr)
        if done.returncode != 0:
            return done.returncode
        print(summary.read_text())
        issues = fake.repo("pytorch/pytorch").issues
        print(f"---\n{len(issues)} issue(s) opened; the first one:\n")
        if issues:
            print(f"# #{issues[0].number} {issues[0].title}\n\n{issues[0].body}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
