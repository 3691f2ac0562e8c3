"""Native code in a platform wheel whose WHEEL says ``Root-Is-Purelib: true`` (as
jax-rocm7-pjrt 0.10.0's does): a note naming the consequence, not a reason to fix; the
same wheel with ``Root-Is-Purelib: false`` has no such note."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from cli_runner import run_main
from conftest import REPO_ROOT
from fatwheel import DIST_INFO, NAME, VERSION, metadata, write_wheel

SCHEMA = json.loads((REPO_ROOT / "docs" / "audit-format.schema.json").read_text())
TAG = "py3-none-manylinux_2_28_x86_64"


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    gcc = shutil.which("gcc")
    if gcc is None:
        pytest.skip("gcc is not installed: cannot build this test's library")
    work = tmp_path_factory.mktemp("purelib")
    (work / "lib.c").write_text("int answer(void) { return 42; }\n")
    subprocess.run(
        [gcc, "-shared", "-fPIC", "-o", str(work / "plugin.so"), str(work / "lib.c")], check=True
    )
    return (work / "plugin.so").read_bytes()


def _audit(tmp_path: Path, library: bytes, purelib: str) -> dict[str, Any]:
    wheel_file = f"Wheel-Version: 1.0\nGenerator: tests\nRoot-Is-Purelib: {purelib}\nTag: {TAG}\n"
    wheel = write_wheel(
        tmp_path / f"{NAME}-{VERSION}-{TAG}.whl",
        [
            (f"{NAME}/plugin.so", library, 0o755),
            (f"{DIST_INFO}/METADATA", metadata(), 0o644),
            (f"{DIST_INFO}/WHEEL", wheel_file.encode(), 0o644),
        ],
    )
    result = run_main(["audit", str(wheel), "--format", "json"])
    assert result.returncode == 0, result.stderr
    data: dict[str, Any] = json.loads(result.stdout)
    jsonschema.validate(data, SCHEMA)
    return data


def test_native_code_under_a_purelib_root_is_a_note(tmp_path: Path, library: bytes) -> None:
    data = _audit(tmp_path, library, "true")
    notes = [f for f in data["findings"] if f["kind"] == "native-code-in-purelib"]
    assert len(notes) == 1 and "Root-Is-Purelib: false" in notes[0]["detail"]
    assert all("native-code-in-purelib" not in v["reason"] for v in data["verdicts"])


def test_a_platlib_root_has_no_such_note(tmp_path: Path, library: bytes) -> None:
    data = _audit(tmp_path, library, "false")
    assert not [f for f in data["findings"] if f["kind"] == "native-code-in-purelib"]
    (tmp_path / "noted").mkdir()
    noted = _audit(tmp_path / "noted", library, "true")  # the note changes no verdict
    assert [v["verdict"] for v in noted["verdicts"]] == [v["verdict"] for v in data["verdicts"]]
