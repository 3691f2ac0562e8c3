"""Who the bot is, as plain data: the login whose issues and comments carry markers we act
on (the adapter in ``github/identity.py`` asks GitHub; this is what needs no request).

One identity whatever the token: a personal token writes as its user (``alice``), an
installation token as its App (``size-app[bot]``; the workflow's GITHUB_TOKEN is the
``github-actions`` App's). A configured login may leave out ``[bot]``; it is matched
against what the token writes as, and a mismatch is one error, never silent duplicates.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from wheel_size.errors import GitHubError, InputError

__all__ = [
    "ACTIONS_BOT",
    "bot_form",
    "bot_of",
    "check_author",
    "check_login",
    "is_login",
    "reconcile",
]

#: The author of every issue and comment written with a workflow's GITHUB_TOKEN.
ACTIONS_BOT = "github-actions[bot]"
_BOT = "[bot]"

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


def bot_form(login: str) -> str:
    """An App's login as its writes show it: ``size-app`` → ``size-app[bot]``."""
    return login if login.casefold().endswith(_BOT) else login + _BOT


def _same(a: str, b: str) -> bool:
    return a.casefold() == b.casefold()


def _set_it(login: str) -> str:
    return f"set bot-login: {login} (or leave bot-login unset: the token's own login is used)"


def reconcile(configured: str, token_login: str) -> str:
    """The configured login as the token writes it: ``token_login`` when the configured
    one names it (with or without ``[bot]``), else one error naming both."""
    if _same(configured, token_login) or _same(bot_form(configured), token_login):
        return token_login
    raise GitHubError(
        f"bot-login {configured}: this token writes as {token_login}, so the bot's issues "
        f"and comments would never be found again; {_set_it(token_login)}"
    )


def bot_of(configured: str | None, token_login: Callable[[], str]) -> str:
    """The bot's login: the token's (asked once), or ``configured`` reconciled with it.

    One exception: when the token's answer is the Actions bot, a configured App login
    (``…[bot]``) is taken as given. GitHub names an installation token's App only through
    GraphQL, and where it does not (refused, absent) the answer falls back to the Actions
    bot; the run's first write then checks it (:func:`check_author`)."""
    token = token_login()
    if not configured:
        return token
    if _same(token, ACTIONS_BOT) and configured.casefold().endswith(_BOT):
        return configured
    return reconcile(configured, token)


def check_author(author: str, bot: str, what: str) -> None:
    """What the run just wrote (``what``) must be the bot's: a token that writes as someone
    else than ``bot`` would disown everything it writes (duplicates every run)."""
    if author and not _same(author, bot):
        raise GitHubError(
            f"{what} was written as {author}, but the bot's login is {bot}: this run would "
            f"never find its own issues and comments again; {_set_it(author)}"
        )
