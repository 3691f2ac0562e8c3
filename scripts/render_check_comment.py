#!/usr/bin/env python3
"""Draw the README's picture of the pull-request size check's comment.

Builds a nightly wheel and a pull request's wheel from the committed nvcc-built fixture
libraries (tests/data/cuda) plus incompressible padding, stores the nightly in a history
directory, runs the real check (its artifact served from a local folder instead of GitHub),
renders the comment's Markdown to HTML with markdown-it-py and screenshots it in headless
Chromium: ``python scripts/render_check_comment.py docs/images/check-comment.png``.
"""

from __future__ import annotations

import argparse
import random
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO_ROOT / "src"), str(REPO_ROOT / "tests")]

from markdown_it import MarkdownIt  # noqa: E402

from history_factory import run as run_record  # noqa: E402
from wheel_factory import make_artifact, make_wheel  # noqa: E402
from wheel_size.check.budget import Budget  # noqa: E402
from wheel_size.check.job import pr_check  # noqa: E402
from wheel_size.check.run import CheckOptions  # noqa: E402
from wheel_size.history import DirectoryStore  # noqa: E402
from wheel_size.history.history import load_history  # noqa: E402

MB = 1_048_576
CUDA = REPO_ROOT / "tests" / "data" / "cuda"
TAG = "cp312-cp312-manylinux_2_28_x86_64"
STYLE = """body{font-family:-apple-system,Segoe UI,Helvetica,Arial,sans-serif;font-size:14px;
color:#1f2328;margin:16px;max-width:960px}table{border-collapse:collapse;margin:8px 0}
td,th{border:1px solid #d1d9e0;padding:4px 10px}th{background:#f6f8fa}
code{background:#eff1f3;border-radius:4px;padding:1px 4px;font-size:12px}
details{margin:8px 0}summary{cursor:pointer}sub{color:#59636e}"""


class LocalArtifacts:
    """Serves the nightly's artifact from a folder, as the GitHub download would."""

    def __init__(self, zip_path: Path) -> None:
        self.zip_path = zip_path

    def download(self, run_id: int, artifact: str, dest: Path) -> Path:
        shutil.copy(self.zip_path, dest)
        return dest


def main(out: Path) -> int:
    rng = random.Random(7)
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        base_files: dict[str, bytes | Path] = {
            "torchao/__init__.py": b"",
            "torchao/_C.so": CUDA / "libk_v1.so",
            "torchao/lib/libkernels.so": rng.randbytes(38 * MB),
        }
        nightly = make_wheel(tmp / "n", "torchao", "0.15.0.dev20251011+cu128", TAG, base_files)
        artifact = make_artifact(tmp / "n" / "artifact.zip", [nightly])
        pr_files = {
            **base_files,
            "torchao/_C.so": CUDA / "libk_v1_more_kernels.so",
            "torchao/lib/libfp8_gemm.so": rng.randbytes(round(2.4 * MB)),
        }
        pr_dir = tmp / "pr" / "manywheel-py3_12-cuda12_8"
        pr_dir.mkdir(parents=True)
        make_wheel(pr_dir, "torchao", "0.15.0.dev20251012+cu128", TAG, pr_files)
        record = run_record(
            "2025-10-11", {"cuda12_8": artifact.stat().st_size / MB}, repo="pytorch/ao"
        )
        DirectoryStore(tmp / "history").write_runs([record])
        history = load_history(DirectoryStore(tmp / "history"))
        options = CheckOptions(wheels=[tmp / "pr"], budget=Budget(growth_mb=1, ceiling_mb=100))
        outcome = pr_check(
            options,
            history,
            artifacts=LocalArtifacts(artifact),
            run_url="https://github.com/pytorch/ao/actions/runs",
        )
        body = MarkdownIt("commonmark").enable("table").render(outcome.markdown)
        body = body.replace("<details>", "<details open>", 1)  # show the breakdown
        page = tmp / "comment.html"
        page.write_text(f"<!doctype html><meta charset=utf-8><style>{STYLE}</style>{body}")
        shot = tmp / "shot.png"
        subprocess.run(
            ["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
             "--disable-background-networking", "--disable-component-update", "--no-first-run",
             f"--user-data-dir={tmp / 'profile'}", "--window-size=1000,1000",
             f"--screenshot={shot}", page.as_uri()],
            check=True, capture_output=True, timeout=120,
        )  # fmt: skip
        out.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(shot, out)
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument(
        "out", nargs="?", type=Path, default=REPO_ROOT / "docs/images/check-comment.png",
        help="PNG to write (default docs/images/check-comment.png)",
    )  # fmt: skip
    sys.exit(main(parser.parse_args().out))
