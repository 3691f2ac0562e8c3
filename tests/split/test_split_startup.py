"""Issue 30: what a split costs before and after its work. It makes no HTTPS call, so the
console script loads no trust store for it (truststore, urllib3, requests, ssl: ~0.06
CPU-s); it reads no stored record, so nothing of the history is imported to report
skipped ones; and what every worker would import is imported once, before the fork."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from test_split_recompress import NAME, fat_files, zip_wheel

from conftest import checkout_env, unmeasured
from fatwheel import HIP_DIR

PROBE = """
import json, os, sys
from wheel_size.cli.main import main
status = main(sys.argv[1:], system_trust=True)  # as the console script runs it
heavy = ("truststore", "requests", "urllib3", "ssl", "wheel_size.history", "wheel_size.action")
loaded = sorted(m for m in sys.modules if m.startswith(heavy))
print(json.dumps({"status": status, "loaded": loaded}))
"""


def test_a_split_loads_no_trust_store_and_no_history(tmp_path: Path) -> None:
    wheel = zip_wheel(tmp_path / NAME, fat_files())
    done = _split_under(wheel, tmp_path, PROBE, jobs=2)
    result = json.loads(done.stdout.splitlines()[-1])
    assert result["status"] == 0, done.stderr
    assert result["loaded"] == []
    assert len(list((tmp_path / "out").glob("*.whl"))) > 1


POOLED = """
import io, sys
from pathlib import Path
from wheel_size.split.apply import split_wheel
from wheel_size.split.job import checked_split_options
options = checked_split_options(
    device_package_prefix="amd-torch-device", overlay_root="torch/", jobs=2
)
split_wheel(Path(sys.argv[1]), Path(sys.argv[2]), options, log=io.StringIO(), workers=2)
"""


def test_forked_workers_import_nothing_the_split_has_not(tmp_path: Path) -> None:
    """Every module of ours is imported once, in the parent, before the pool forks: a
    module a library job needs, imported in each worker, shows twice in ``-X importtime``.
    (A wheel this small runs in one process by the rule; the pool is asked for.)"""
    wheel = zip_wheel(tmp_path / NAME, fat_files())
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", POOLED, str(wheel), str(tmp_path / "out")],
        env=checkout_env(), capture_output=True, text=True, timeout=120, check=True,
    )  # fmt: skip
    ours = [
        line.rsplit("|", 1)[1].strip()
        for line in done.stderr.splitlines()
        if line.startswith("import time:") and "wheel_size" in line
    ]
    assert "wheel_size.rocm.kpack" in ours  # the library jobs ran
    assert sorted({m for m in ours if ours.count(m) > 1}) == []


def test_no_pool_imports_no_multiprocessing(tmp_path: Path) -> None:
    """A split too small for a pool (``--jobs 2`` allowed) imports nothing only a pool
    needs."""
    imported = _imported_by_split(zip_wheel(tmp_path / NAME, fat_files()), tmp_path)
    assert "wheel_size.rocm.kpack" in imported  # the library jobs ran
    pool_only = ("multiprocessing", "concurrent.futures.process", "_multiprocessing")
    assert sorted(m for m in imported if m.startswith(pool_only)) == []


def test_a_small_split_imports_no_thread_pool_no_report_types_no_ccob(tmp_path: Path) -> None:
    """What a small split does not use is not imported (issue 30, start-up): the thread
    pool (``concurrent.futures.thread`` and its queue: a member of one zlib block is
    deflated in the calling thread), the report's TypedDicts (the document's shape, for
    the type checker; its rows are plain dicts) and, where every bundle is plain, the
    compressed-bundle reader."""
    files = fat_files()
    del files["torch/lib/libmulti19.so"]  # one of its bundles is compressed
    files["torch/lib/libplain19.so"] = (HIP_DIR / "libplain19.so").read_bytes()
    wheel = zip_wheel(tmp_path / NAME, files)
    imported = _imported_by_split(wheel, tmp_path, "--report-json", str(tmp_path / "r.json"))
    assert "wheel_size.split.report" in imported  # the report was written
    assert json.loads((tmp_path / "r.json").read_text())["libraries"]
    unused = {"concurrent.futures.thread", "wheel_size.split.document", "wheel_size.rocm.ccob"}
    assert sorted(imported & unused) == []


FROZEN_AT_EXIT = """
import atexit, gc, sys
atexit.register(lambda: print("frozen at exit:", gc.get_freeze_count()))
from wheel_size.cli.main import entrypoint
sys.argv[0] = "wheel-size"
entrypoint()
"""


def test_the_console_script_exits_without_the_collectors_last_passes(tmp_path: Path) -> None:
    """At exit the collector walked every object the run left (every module, class and
    function imported) to find a few cycles: 15-20 ms of CPU on every command, a tenth of a
    small wheel's split. The console script freezes them first; the outputs are written
    and atexit handlers still run."""
    wheel = zip_wheel(tmp_path / NAME, fat_files())
    done = _split_under(wheel, tmp_path, FROZEN_AT_EXIT, jobs=1)
    frozen = int(done.stdout.splitlines()[-1].removeprefix("frozen at exit:"))
    assert frozen > 10_000  # every object alive at the end of the run
    assert len(list((tmp_path / "out").glob("*.whl"))) > 1


EARLY_COLLECTIONS = """
import gc, json, sys
from wheel_size.cli.main import entrypoint
early = []
def count(phase, info):
    if phase == "start" and "wheel_size.split.report" not in sys.modules:
        early.append(info["generation"])
gc.callbacks.append(count)  # from here on: the command starts
sys.argv[0] = "wheel-size"
try:
    entrypoint()
finally:
    print(json.dumps({"early": len(early), "enabled": gc.isenabled()}))
"""


def test_the_console_script_imports_a_splits_modules_before_the_collector_runs(
    tmp_path: Path,
) -> None:
    """The collector walked the objects imports pile up (modules, classes, functions: they
    live to the end and hold no garbage) again and again while a split started, ~10 ms of
    its CPU. The console script keeps it off until the split's modules are imported, then
    freezes what they made and turns it on for the work."""
    wheel = zip_wheel(tmp_path / NAME, fat_files())
    done = _split_under(wheel, tmp_path, EARLY_COLLECTIONS, jobs=1, check=False)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout.splitlines()[-1])
    assert result == {"early": 0, "enabled": True}  # the work ran with the collector on


def _split_under(
    wheel: Path, tmp_path: Path, script: str, *, jobs: int, check: bool = True
) -> subprocess.CompletedProcess[str]:
    """``split`` of ``wheel`` into ``tmp_path/out`` run by the Python ``script`` (which calls
    the CLI with its ``sys.argv``) in a fresh process."""
    return subprocess.run(
        [sys.executable, "-c", script, "split", "--input", str(wheel),
         "--output-dir", str(tmp_path / "out"), "--device-package-prefix", "amd-torch-device",
         "--overlay-root", "torch/", "--jobs", str(jobs)],
        env=checkout_env(), capture_output=True, text=True, timeout=120, check=check,
    )  # fmt: skip


def _imported_by_split(wheel: Path, tmp_path: Path, *extra: str) -> set[str]:
    """Every module a ``split --jobs 2`` of ``wheel`` imports, run as a fresh process
    without coverage (under CI it imports multiprocessing and threads of its own)."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "wheel_size", "split", "--input", str(wheel),
         "--output-dir", str(tmp_path / "out"), "--device-package-prefix", "amd-torch-device",
         "--overlay-root", "torch/", "--jobs", "2", *extra],
        env=unmeasured(checkout_env()), capture_output=True, text=True, timeout=120, check=True,
    )  # fmt: skip
    return {
        line.rsplit("|", 1)[1].strip()
        for line in done.stderr.splitlines()
        if line.startswith("import time:")
    }
