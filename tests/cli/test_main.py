from __future__ import annotations

import pytest

from conftest import run_cli
from wheel_size.cli.main import main


def test_version_exits_zero(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["--version"])
    assert exc.value.code == 0
    assert "wheel-size" in capsys.readouterr().out


def test_module_runs_as_subprocess() -> None:
    result = run_cli(["--help"])
    assert result.returncode == 0
    assert "usage: wheel-size" in result.stdout


def test_unknown_command_is_an_error() -> None:
    result = run_cli(["no-such-command"])
    assert result.returncode == 2
    assert "invalid choice" in result.stderr
