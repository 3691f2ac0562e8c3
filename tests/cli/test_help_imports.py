"""``wheel-size --help`` and one command import only what they run: the help lists every
command without importing any of them, and a command imports its own module alone (the
modes' imports used to cost 0.4-0.5 s of CPU before any help was shown)."""

from __future__ import annotations

import json
import subprocess
import sys

from conftest import checkout_env

PROBE = """
import contextlib, io, json, sys
from wheel_size.cli.main import entrypoint
with contextlib.redirect_stdout(io.StringIO()) as out:
    try:
        entrypoint()  # the console script, as `wheel-size --help` runs it
    except SystemExit:
        pass
heavy = ("wheel_size.", "github", "jinja2", "truststore", "requests", "urllib3", "ssl")
loaded = sorted(m for m in sys.modules if m.startswith(heavy))
print(json.dumps({"help": out.getvalue(), "loaded": loaded}))
"""


def _probe(*argv: str) -> tuple[str, list[str]]:
    """(what the command printed, the modules it imported)."""
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *argv], env=checkout_env(), capture_output=True,
        text=True, timeout=120, check=True,
    )  # fmt: skip
    result = json.loads(done.stdout)
    return str(result["help"]), [str(m) for m in result["loaded"]]


def test_help_lists_every_command_and_imports_none() -> None:
    shown, loaded = _probe("--help")
    assert "investigate" in shown and "plan-chunks" in shown
    assert [
        m for m in loaded if m.startswith("wheel_size.cli.") and m != "wheel_size.cli.main"
    ] == []
    assert not any(m.startswith(("github", "jinja2", "wheel_size.regressions")) for m in loaded)
    # nor TLS: the system trust store is injected once a command runs (0.1 s of CPU)
    assert not any(m.startswith(("truststore", "requests", "urllib3", "ssl")) for m in loaded)


def test_a_command_imports_its_own_module_only() -> None:
    shown, loaded = _probe("report", "--help")
    assert "--history DIR" in shown
    cli = {m for m in loaded if m.startswith("wheel_size.cli.")}
    assert "wheel_size.cli.report" in cli
    assert not cli & {"wheel_size.cli.track", "wheel_size.cli.split", "wheel_size.cli.audit"}
