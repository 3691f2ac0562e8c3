"""Who the bot is: the login whose issues and comments carry markers we may act on.

Markers, states and sticky comments are read only from what this login wrote; a marker in
anyone else's text is a forgery (a stranger could otherwise close or silence an issue, or
edit the bot's result under their own name). The login is the configured one (a GitHub
App's ``myapp[bot]``), else the token's user (``GET /user``: a personal token), else
``github-actions[bot]``: an installation token (GITHUB_TOKEN) cannot read ``/user``.
"""

from __future__ import annotations

import threading

from github import Github, GithubException

from wheel_size.ports.identity import ACTIONS_BOT, check_login, is_login

__all__ = ["BotIdentity"]


class BotIdentity:
    """The bot's login, asked of GitHub at most once per run (one request: ``GET /user``)."""

    def __init__(self, gh: Github, configured: str | None = None) -> None:
        self._gh = gh
        self._login = check_login(configured, "bot login") if configured else None
        self._lock = threading.Lock()

    def login(self) -> str:
        """The login; raises a GitHub failure only when ``/user`` fails for another reason
        than "an installation token has no user" (403/404): guessing then could make the
        run disown its own issues and open them again."""
        with self._lock:
            if self._login is None:
                self._login = self._ask()
            return self._login

    def _ask(self) -> str:
        try:
            _, data = self._gh.requester.requestJsonAndCheck("GET", "/user")
        except GithubException as exc:
            if exc.status in (401, 403, 404):
                return ACTIONS_BOT
            raise
        login = data.get("login") if isinstance(data, dict) else None
        return login if isinstance(login, str) and is_login(login) else ACTIONS_BOT
