"""Who the bot is: the login whose issues and comments carry markers we may act on.

Markers, states and sticky comments are read only from what this login wrote; a marker in
anyone else's text is a forgery (a stranger could otherwise close or silence an issue, or
edit the bot's result under their own name). One identity whatever the token:

- a personal token (or an OAuth/user-to-server token): ``GET /user`` names its user;
- an installation token (a GitHub App's, or the workflow's GITHUB_TOKEN, which is the
  ``github-actions`` App's): ``GET /user`` answers 403, and ``GET /app`` needs the App's
  JWT, not an installation token, so neither names it. GraphQL's ``viewer`` does: it
  answers ``size-app[bot]`` (``github-actions[bot]`` for GITHUB_TOKEN) to any token, one
  request;
- when GitHub names nobody (GraphQL refused or absent): ``github-actions[bot]``, checked
  at the run's first write (:func:`wheel_size.ports.identity.check_author`): an App token
  then fails with one line naming the login to set, instead of disowning its own writing.

A configured ``bot-login`` ending in ``[bot]`` costs no request; one without it is matched
against the token's login (``size-app`` is ``size-app[bot]`` for an App token).
"""

from __future__ import annotations

import threading

from github import Github, GithubException

from wheel_size.github.client import GITHUB_FAILURES
from wheel_size.ports.identity import ACTIONS_BOT, bot_of, check_login, is_login

__all__ = ["VIEWER_QUERY", "BotIdentity"]

VIEWER_QUERY = "query { viewer { login } }"


class BotIdentity:
    """The bot's login, asked of GitHub at most once per run (``GET /user``, and for an
    installation token GraphQL's ``viewer``)."""

    def __init__(self, gh: Github, configured: str | None = None) -> None:
        self._gh = gh
        self._configured = check_login(configured, "bot login") if configured else None
        self._login: str | None = None
        self._lock = threading.Lock()

    def login(self) -> str:
        """The login; raises a GitHub failure only when ``/user`` fails for another reason
        than "an installation token has no user" (401/403/404): guessing then could make
        the run disown its own issues and open them again."""
        with self._lock:
            if self._login is None:
                self._login = bot_of(self._configured, self._ask)
            return self._login

    def _ask(self) -> str:
        try:
            _, data = self._gh.requester.requestJsonAndCheck("GET", "/user")
        except GithubException as exc:
            if exc.status in (401, 403, 404):
                return self._viewer()
            raise
        login = data.get("login") if isinstance(data, dict) else None
        return login if isinstance(login, str) and is_login(login) else self._viewer()

    def _viewer(self) -> str:
        """An installation token's login from GraphQL (``size-app[bot]``); the Actions bot
        when GitHub does not say (checked at the first write)."""
        try:
            _, data = self._gh.requester.graphql_query(VIEWER_QUERY, {})
        except GITHUB_FAILURES:  # refused, absent or failing: the first write tells
            return ACTIONS_BOT
        viewer = (data.get("data") or {}).get("viewer") if isinstance(data, dict) else None
        login = viewer.get("login") if isinstance(viewer, dict) else None
        return login if isinstance(login, str) and is_login(login) else ACTIONS_BOT
