"""Who the bot is, as plain data: the login whose issues and comments carry markers we act
on (the adapter in ``github/identity.py`` asks GitHub; this is what needs no request)."""

from __future__ import annotations

import re

from wheel_size.errors import InputError

__all__ = ["ACTIONS_BOT", "check_login", "is_login"]

#: The author of every issue and comment written with a workflow's GITHUB_TOKEN.
ACTIONS_BOT = "github-actions[bot]"

_LOGIN = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})(?:\[bot\])?")


def is_login(text: str) -> bool:
    """A GitHub user or app login (``octocat``, ``myapp[bot]``)."""
    return _LOGIN.fullmatch(text) is not None


def check_login(text: str, name: str) -> str:
    """A GitHub login, or one line naming the input (``name``) and the problem."""
    login = text.strip()
    if not is_login(login):
        raise InputError(
            f"{name}: {text!r} is not a GitHub login (e.g. github-actions[bot] or myapp[bot])"
        )
    return login
