"""The diff prices debug information (issue 34, point 3): a library that lost its
``strip`` between two wheels shows what ``strip`` would save on each side, the new side equal
to what strip really removes from the extracted library."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import jsonschema
import pytest

from cli_runner import run_main
from conftest import REPO_ROOT
from wheel_factory import make_wheel
from wheel_size.units import format_size


def test_unstripped_library_is_priced_in_the_diff(tmp_path: Path) -> None:
    cc, strip = shutil.which("clang-19") or shutil.which("gcc"), shutil.which("strip")
    if cc is None or strip is None:
        pytest.skip("a C compiler and strip are needed (clang-19 or gcc, binutils)")
    source = "\n".join(f"int f{i}(int *v, int n) {{ int s = {i}; for (int k = 0; k < n; k++) "
                       f"s += v[k] ^ {i}; return s; }}" for i in range(120))  # fmt: skip
    (tmp_path / "a.c").write_text(source + "\n")
    built = tmp_path / "libx.so"
    subprocess.run([cc, "-g", "-O1", "-fPIC", "-shared", "-o", str(built), str(tmp_path / "a.c")],
                   check=True)  # fmt: skip
    stripped = tmp_path / "stripped.so"
    shutil.copy(built, stripped)
    subprocess.run([strip, "--strip-unneeded", str(stripped)], check=True)
    debug_only = tmp_path / "debug.so"
    shutil.copy(built, debug_only)
    subprocess.run([strip, "--strip-debug", str(debug_only)], check=True)
    old = make_wheel(tmp_path / "old", "demo", "1.0", "cp312-cp312-linux_x86_64",
                     {"demo/libx.so": stripped})  # fmt: skip
    new = make_wheel(tmp_path / "new", "demo", "1.1", "cp312-cp312-linux_x86_64",
                     {"demo/libx.so": built})  # fmt: skip
    result = run_main(["diff", str(old), str(new)])
    assert result.returncode == 0, result.stderr
    line = next(ln for ln in result.stdout.splitlines() if "would save" in ln)
    m = re.search(r"`strip --strip-debug` would save (\S+ \S+) → (\S+ \S+); "
                  r"`strip --strip-unneeded` (\S+ \S+) → (\S+ \S+)", line)  # fmt: skip
    assert m is not None, line
    assert m.group(1) == "0 B" and m.group(3) == "0 B"  # the old library was stripped
    # the new side, against what strip really removes (shown to 0.1 KB)
    real_debug = built.stat().st_size - debug_only.stat().st_size
    real_unneeded = built.stat().st_size - stripped.stat().st_size
    shown = {format_size(real_debug + d) for d in range(-200, 201)}
    assert m.group(2) in shown
    assert m.group(4) in {format_size(real_unneeded + d) for d in range(-200, 201)}

    # the same savings per library in the diff's JSON, which its schema describes
    done = run_main(["diff", str(old), str(new), "--format", "json"])
    assert done.returncode == 0, done.stderr
    document = json.loads(done.stdout)
    jsonschema.validate(
        document, json.loads((REPO_ROOT / "docs/diff-format.schema.json").read_text())
    )
    files = [f for c in document["comparisons"] for f in c["files"]] if "comparisons" in document \
        else document["files"]  # fmt: skip
    (lib,) = [f for f in files if f["path"] == "demo/libx.so"]
    strip_json = lib["strip"]
    assert strip_json["old_strip_debug_bytes"] == 0 and strip_json["old_strip_unneeded_bytes"] == 0
    assert abs(strip_json["new_strip_debug_bytes"] - real_debug) <= max(512, real_debug // 50)
    assert abs(strip_json["new_strip_unneeded_bytes"] - real_unneeded) <= max(
        512, real_unneeded // 50
    )
    assert all(f["strip"] is None for f in files if not f["path"].endswith(".so"))
