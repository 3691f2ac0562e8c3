"""The check's sticky comment belongs to the configured bot (issue 17): the check action's
``bot-login`` input and the CLI's ``--bot-login`` reach the request; a bad login is one line."""

from __future__ import annotations

from pathlib import Path

import pytest

from wheel_size.action.check import check_request
from wheel_size.errors import InputError


def _env(tmp_path: Path, **inputs: str) -> dict[str, str]:
    (tmp_path / "pr").mkdir(exist_ok=True)
    env = {
        "GITHUB_WORKSPACE": str(tmp_path),
        "GITHUB_REPOSITORY": "pytorch/pytorch",
        "INPUT_CHECK-WHEELS": "pr",
        "INPUT_HISTORY-DIR": str(tmp_path / "history"),
    }
    env.update({f"INPUT_{k.upper()}": v for k, v in inputs.items()})
    return env


def test_the_action_passes_the_bot_login(tmp_path: Path) -> None:
    request = check_request(_env(tmp_path, **{"bot-login": "size-app[bot]"}), tmp_path, None)
    assert request.bot_login == "size-app[bot]"
    assert check_request(_env(tmp_path), tmp_path, None).bot_login is None


def test_a_bad_bot_login_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="bot-login"):
        check_request(_env(tmp_path, **{"bot-login": "not a login; rm -rf"}), tmp_path, None)


def test_the_cli_passes_the_bot_login(tmp_path: Path) -> None:
    from wheel_size.cli.check import request_from_args
    from wheel_size.cli.main import build_parser

    args = build_parser().parse_args(
        ["check", str(tmp_path), "--history", str(tmp_path), "--bot-login", "size-bot"]
    )
    assert request_from_args(args).bot_login == "size-bot"
