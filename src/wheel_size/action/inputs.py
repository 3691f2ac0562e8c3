"""Reading the Action's inputs, shared by the track, split and audit modes.

The runner passes every input as ``INPUT_<NAME>`` (hyphens kept, spaces as underscores).
Each mode turns its inputs into the same typed options its CLI command builds (no command line
in between), so an input is checked like the flag it stands for and named in the error.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from wheel_size.errors import InputError

__all__ = [
    "action_input",
    "bool_input",
    "bot_login_input",
    "repository",
    "words",
    "workspace_paths",
]


def action_input(env: Mapping[str, str], name: str) -> str:
    """The input ``name`` (as action.yml spells it), stripped; empty when not given."""
    return env.get(f"INPUT_{name.replace(' ', '_').upper()}", "").strip()


def bool_input(env: Mapping[str, str], name: str, *, default: bool = False) -> bool:
    """A true/false input; empty is ``default``, anything unrecognised is an input error."""
    value = action_input(env, name).lower()
    if not value:
        return default
    if value in ("false", "0", "no", "off"):
        return False
    if value in ("true", "1", "yes", "on"):
        return True
    raise InputError(f"input {name} must be true or false, not {value!r}")


def bot_login_input(env: Mapping[str, str]) -> str | None:
    """The ``bot-login`` input: whose comments and issues are the bot's (empty: None, the
    token's user or github-actions[bot])."""
    from wheel_size.ports import check_login

    text = action_input(env, "bot-login")
    return check_login(text, "input bot-login") if text else None


def repository(env: Mapping[str, str]) -> str:
    """The ``repository`` input, else the repository the workflow runs in."""
    return action_input(env, "repository") or env.get("GITHUB_REPOSITORY", "")


def words(text: str) -> list[str]:
    """A list input: items separated by spaces, commas or newlines."""
    return text.replace(",", " ").split()


def workspace_paths(env: Mapping[str, str], name: str, workspace: Path) -> list[Path]:
    """The files the input ``name`` lists: paths or glob patterns, relative to the workspace
    or absolute inside it (``${{ github.workspace }}/dist/*.whl``). One that matches
    nothing or leads out of the workspace is an input error naming ``name``."""
    from wheel_size.action.workspace import Workspace

    return Workspace.at(workspace, env).files(name, words(action_input(env, name)))
