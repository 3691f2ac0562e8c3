"""A library call leaves the process environment as it found it (issue 22, point 5):
``run_split_job`` with a ``tmp_dir`` stages its work there by passing the directory on,
not by setting ``$TMPDIR`` for the rest of the process."""

from __future__ import annotations

import os
from pathlib import Path

from fatwheel import build_fat_wheel
from wheel_size.split.job import SplitRequest, checked_split_options, run_split_job


def test_split_job_leaves_environment_alone(tmp_path: Path) -> None:
    wheel = build_fat_wheel(tmp_path / "in")
    options = checked_split_options(
        device_package_prefix="amd-torch-device", overlay_root="torch/", wheel_type="torch-fat"
    )
    request = SplitRequest(
        wheel, tmp_path / "out", options, report_json=tmp_path / "r.json", tmp_dir=tmp_path / "t"
    )
    before = dict(os.environ)
    outcome = run_split_job(request)
    assert dict(os.environ) == before
    assert outcome.outputs and (tmp_path / "r.json").is_file()
