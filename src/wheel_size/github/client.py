"""One way to talk to GitHub: a PyGithub client whose retries are safe for writes.

PyGithub's default retry re-sends a POST that failed with a 5xx — after GitHub may already
have stored it — which is how duplicate issues appear. Here reads (GET/HEAD) are retried on
5xx and connection errors; writes are only re-sent when GitHub said "rate limited" (then it
refused them, so nothing was stored). Rate-limit waits honour ``Retry-After`` and
``x-ratelimit-reset`` but never exceed ``max_wait``: a nightly job fails with a clear line
rather than sleeping for an hour. Writes whose answer was lost go through :func:`create_once`.
"""

from __future__ import annotations

import json
import os
import re
import ssl
import sys
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, fields, replace
from datetime import datetime, timezone
from email.utils import parsedate_to_datetime
from types import TracebackType
from typing import Any, TypeVar
from urllib.parse import urlsplit

import requests
from github import Auth, Github, GithubException
from github.GithubException import RateLimitExceededExceedsMaxWait
from github.Requester import Requester
from urllib3 import BaseHTTPResponse
from urllib3.connectionpool import ConnectionPool
from urllib3.exceptions import MaxRetryError
from urllib3.util.retry import Retry

from wheel_size.errors import GitHubError, InputError, WheelSizeError
from wheel_size.github.permissions import needed_permission
from wheel_size.trust import check_ca_bundles

__all__ = [
    "DEFAULT_API_URL",
    "GITHUB_FAILURES",
    "GitHubRetry",
    "GithubClient",
    "RetryPolicy",
    "connect",
    "create_once",
    "github_error",
    "github_errors",
    "may_have_been_stored",
    "scrub",
]

T = TypeVar("T")

# The client type, for adapters that hand it on without importing PyGithub themselves.
GithubClient = Github

DEFAULT_API_URL = "https://api.github.com"
RETRY_ENV = "WHEEL_SIZE_GITHUB_RETRY"
READ_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})

# Tokens handed to connect(); every message we build is scrubbed of them.
_SECRETS: set[str] = set()
# A 403 that no grant in ``permissions:`` would change: the feature is off or the account held.
_NOT_A_PERMISSION = re.compile(r"\b(disabled|blocked|suspended)\b", re.I)
# The attribute a refusal carries: the permission its endpoint needs (github.permissions).
NEEDS_ATTRIBUTE = "wheel_size_needs"


@dataclass(frozen=True)
class RetryPolicy:
    """How hard to try before giving up; the defaults suit a nightly job.

    ``total``: retries after the first attempt (all causes together). ``backoff``: factor of
    the exponential backoff for 5xx and connection errors (seconds). ``max_wait``: longest
    single wait accepted for a rate limit; a longer one fails at once with the reset time.
    ``secondary_wait``: first wait for a secondary rate limit that names no ``Retry-After``
    (GitHub asks for at least a minute), doubled on each further one.
    ``between_requests``/``between_writes``: PyGithub's pacing (GitHub asks for ≥ 1 s
    between writes).
    """

    total: int = 8
    backoff: float = 2.0
    max_wait: float = 900.0
    secondary_wait: float = 60.0
    between_requests: float = 0.0
    between_writes: float = 1.0
    timeout: int = 60  # seconds per request (PyGithub wants an int)

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> RetryPolicy:
        """Defaults, overridden by ``WHEEL_SIZE_GITHUB_RETRY="total=3,max_wait=5"``."""
        text = (os.environ if environ is None else environ).get(RETRY_ENV, "").strip()
        if not text:
            return cls()
        known = {f.name: f.type for f in fields(cls)}
        values: dict[str, Any] = {}  # keyword arguments of replace(), not a document
        for item in text.split(","):
            key, sep, value = item.partition("=")
            key = key.strip()
            if not sep or key not in known:
                raise InputError(
                    f"{RETRY_ENV}: cannot read {item.strip()!r}; "
                    f"expected name=value with name in {', '.join(known)}"
                )
            try:
                values[key] = int(value) if key in ("total", "timeout") else float(value)
            except ValueError:
                raise InputError(f"{RETRY_ENV}: {key} must be a number, not {value!r}") from None
        return replace(cls(), **values)


def _header(headers: Mapping[str, Any] | None, name: str) -> str | None:
    if not headers:
        return None
    wanted = name.lower()
    for key, value in headers.items():
        if key.lower() == wanted:
            return str(value)
    return None


def _message(data: Any) -> str:
    if isinstance(data, dict):
        return str(data.get("message") or "")
    if isinstance(data, (str, bytes)):
        return data.decode("utf-8", "replace") if isinstance(data, bytes) else data
    return ""


def _is_secondary_message(message: str) -> bool:
    return Requester.isSecondaryRateLimitError(message) or "secondary rate limit" in message.lower()


class GitHubRetry(Retry):
    """urllib3 retry rules for GitHub (see the module docstring).

    403/429 answers are inspected: a rate limit is waited out (``Retry-After`` if given,
    else until ``x-ratelimit-reset`` when ``x-ratelimit-remaining`` is 0, else
    ``secondary_wait`` doubling) and the request re-sent whatever its method, because
    GitHub refused it; any other 403 is raised at once as PyGithub's exception.
    """

    def __init__(
        self,
        *,
        secondary_wait: float = 60.0,
        max_wait: float = 900.0,
        rate_limit_hits: int = 0,
        **kwargs: Any,
    ) -> None:
        kwargs.setdefault("allowed_methods", READ_METHODS)
        kwargs.setdefault("status_forcelist", frozenset(range(500, 600)))
        kwargs.setdefault("raise_on_status", False)
        kwargs.setdefault("respect_retry_after_header", True)
        super().__init__(**kwargs)
        self.secondary_wait = secondary_wait
        self.max_wait = max_wait
        self.rate_limit_hits = rate_limit_hits
        self.next_wait: float | None = None

    @classmethod
    def from_policy(cls, policy: RetryPolicy) -> GitHubRetry:
        return cls(
            total=policy.total,
            backoff_factor=policy.backoff,
            backoff_max=max(policy.max_wait, 0.0),
            secondary_wait=policy.secondary_wait,
            max_wait=policy.max_wait,
        )

    def new(self, **kw: Any) -> GitHubRetry:
        kw.setdefault("secondary_wait", self.secondary_wait)
        kw.setdefault("max_wait", self.max_wait)
        kw.setdefault("rate_limit_hits", self.rate_limit_hits)
        return super().new(**kw)

    def is_retry(self, method: str, status_code: int, has_retry_after: bool = False) -> bool:
        if status_code in (403, 429):
            return True  # increment() looks at the answer and decides
        return super().is_retry(method, status_code, has_retry_after)

    def increment(
        self,
        method: str | None = None,
        url: str | None = None,
        response: BaseHTTPResponse | None = None,
        error: Exception | None = None,
        _pool: ConnectionPool | None = None,
        _stacktrace: TracebackType | None = None,
    ) -> GitHubRetry:
        if error is not None and tls_refused(error):
            # A certificate GitHub's host was not verified against (GHES with a private CA
            # not set up): no retry makes it trusted, so one try, not minutes of backoff.
            raise MaxRetryError(_pool, url or "", error)  # type: ignore[arg-type]
        if response is None or response.status not in (403, 429):
            return super().increment(method, url, response, error, _pool, _stacktrace)
        headers = dict(response.headers)
        raw = response.data  # small error bodies; read before deciding
        try:
            data: Any = json.loads(raw) if raw else None
        except ValueError:
            data = {"message": raw.decode("utf-8", "replace")}
        wait = self._rate_limit_wait(response.status, headers, _message(data))
        if wait is None:  # a real 403 (permissions, blocked, ...): not ours to retry
            refused = Requester.createException(response.status, headers, data)
            # what the endpoint needs, for when GitHub's header does not say (github_error);
            # not for a refusal no permission lifts ("Actions is disabled for this repository")
            if not _NOT_A_PERMISSION.search(_message(data) or ""):
                setattr(refused, NEEDS_ATTRIBUTE, needed_permission(method, url))
            raise refused
        if wait > self.max_wait:
            raise RateLimitExceededExceedsMaxWait(response.status, data, headers, wait=wait)
        try:
            retry = super().increment(method, url, response, error, _pool, _stacktrace)
        except MaxRetryError:
            raise Requester.createException(response.status, headers, data) from None
        retry.rate_limit_hits = self.rate_limit_hits + 1
        retry.next_wait = wait
        return retry

    def _rate_limit_wait(
        self, status: int, headers: Mapping[str, Any], message: str
    ) -> float | None:
        """Seconds to wait for this 403/429, or None when it is not a rate limit."""
        retry_after = _header(headers, "Retry-After")
        if retry_after is not None:
            try:
                return max(0.0, float(retry_after))
            except ValueError:
                when = _http_date(retry_after)
                if when is None:
                    return max(0.0, self.parse_retry_after(retry_after))
                return max(0.0, when - github_now(headers))
        remaining = _header(headers, "x-ratelimit-remaining")
        reset = _header(headers, "x-ratelimit-reset")
        primary = remaining == "0" or Requester.isPrimaryRateLimitError(message)
        if primary and reset is not None and reset.isdigit():
            # GitHub's reset time against GitHub's own clock (the answer's Date), never
            # the runner's: a runner clock an hour off would wait 0 s or an hour.
            return max(0.0, int(reset) - github_now(headers)) + 1.0
        if primary or status == 429 or _is_secondary_message(message):
            return float(self.secondary_wait * (2**self.rate_limit_hits))
        return None

    def sleep(self, response: BaseHTTPResponse | None = None) -> None:
        if self.next_wait is not None:
            if self.next_wait >= SAY_WAITS_FROM:
                print(
                    f"wheel-size: GitHub rate limit: waiting {self.next_wait:.0f} s "
                    f"(at most {self.max_wait:.0f} s, by GitHub's clock)",
                    file=sys.stderr,
                    flush=True,
                )
            time.sleep(self.next_wait)
            return
        super().sleep(response)


def connect(
    token: str | None = None,
    base_url: str | None = None,
    *,
    retry: RetryPolicy | None = None,
    environ: Mapping[str, str] | None = None,
) -> Github:
    """A PyGithub client for ``GITHUB_API_URL`` (GitHub Enterprise ``https://host/api/v3``
    works) with the token from the argument or ``GITHUB_TOKEN``; 100 items per page."""
    env = os.environ if environ is None else environ
    check_ca_bundles(env)
    token = (token or env.get("GITHUB_TOKEN") or "").strip()
    if not token:
        raise InputError("no GitHub token: set GITHUB_TOKEN (or the action's github-token input)")
    if len(token) >= 8:  # shorter strings would mangle messages; real tokens are 40+ chars
        _SECRETS.add(token)
    url = (base_url or env.get("GITHUB_API_URL") or DEFAULT_API_URL).strip().rstrip("/")
    if not re.match(r"^https?://[^/\s]+", url):
        raise InputError(f"GITHUB_API_URL {url!r} is not an http(s) URL")
    policy = retry if retry is not None else RetryPolicy.from_env(env)
    return Github(
        auth=Auth.Token(token),
        base_url=url,
        per_page=100,
        timeout=policy.timeout,
        retry=GitHubRetry.from_policy(policy),
        seconds_between_requests=policy.between_requests,
        seconds_between_writes=policy.between_writes,
        user_agent="wheel-size-action",
    )


def scrub(text: str) -> str:
    """Remove every token we were given from a message, and keep it to one line."""
    for secret in _SECRETS:
        if secret:
            text = text.replace(secret, "***")
    return " ".join(text.split())


def _permission(headers: Mapping[str, Any] | None) -> str | None:
    accepted = _header(headers, "X-Accepted-GitHub-Permissions")
    if not accepted:
        return None
    wanted = []
    for part in re.split(r"[;,]", accepted):
        name, _, level = part.strip().partition("=")
        if name:
            wanted.append(f"`{name}: {level or 'read'}`")
    return " and ".join(wanted) or None


#: Rate-limit waits this long or longer are said on stderr (shorter ones are routine).
SAY_WAITS_FROM = 10.0


def _http_date(text: str | None) -> float | None:
    """An HTTP date (``Date``, ``Retry-After``) as a POSIX time; None if it is none."""
    if not text:
        return None
    try:
        parsed = parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError):
        return None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=timezone.utc)
    return parsed.timestamp()


def github_now(headers: Mapping[str, Any] | None) -> float:
    """Now on GitHub's clock: the answer's ``Date`` header, else the runner's clock."""
    when = _http_date(_header(headers, "Date"))
    return time.time() if when is None else when


def _reset_text(headers: Mapping[str, Any] | None) -> str:
    reset = _header(headers, "x-ratelimit-reset")
    if reset and reset.isdigit():
        when = datetime.fromtimestamp(int(reset), timezone.utc)
        seconds = max(0, int(reset) - int(github_now(headers)))
        return f"; it resets at {when:%H:%M:%S} UTC (in {seconds} s)"
    retry_after = _header(headers, "Retry-After")
    if retry_after:
        return f"; GitHub asks to retry after {retry_after} s"
    return ""


def github_error(exc: BaseException, doing: str, *, not_found: str | None = None) -> GitHubError:
    """One line for a failed GitHub call: what we were doing, the status and GitHub's own
    message, plus what to do (the permission the token lacks, when a rate limit resets).
    ``not_found`` replaces the text of a 404 (e.g. "repository o/r not found or not visible
    to this token"). Accepts connection errors and malformed answers too."""
    if isinstance(exc, GithubException):
        status = exc.status
        data = exc.data
        headers = exc.headers
        message = _message(data) or (exc.message or "")
        details = []
        if isinstance(data, dict) and isinstance(data.get("errors"), list):
            for error in data["errors"]:
                if isinstance(error, dict) and error.get("message"):
                    details.append(str(error["message"]))
                elif isinstance(error, dict) and error.get("code"):
                    details.append(f"{error.get('field', '')} {error['code']}".strip())
        if details:
            message = f"{message}: {'; '.join(details)}"
        said = f"GitHub answered {status}" + (f" {message!r}" if message else "")
        permission = _permission(headers) or getattr(exc, NEEDS_ATTRIBUTE, None)
        if status == 401:
            text = f"{doing}: {said}; the token is missing, expired or wrong (check GITHUB_TOKEN)"
        elif isinstance(exc, RateLimitExceededExceedsMaxWait):
            wait = exc.wait or 0.0
            text = (
                f"{doing}: GitHub rate limit: {message or status}{_reset_text(headers)}; "
                f"waiting {wait:.0f} s is longer than allowed, try again later"
            )
        elif status in (403, 429) and (
            _header(headers, "Retry-After") is not None
            or _header(headers, "x-ratelimit-remaining") == "0"
            or Requester.isRateLimitError(message)
            or status == 429
        ):
            text = f"{doing}: GitHub rate limit: {said}{_reset_text(headers)}"
        elif permission and status in (403, 404):
            text = f"{doing}: {said}; the token needs {permission}"
        elif status == 404 and not_found:
            text = f"{doing}: {not_found}"
        elif status == 404:
            text = f"{doing}: {said} (it does not exist or this token cannot see it)"
        elif status >= 500:
            text = f"{doing}: {said} (a GitHub server error; try again later)"
        else:
            text = f"{doing}: {said}"
        return GitHubError(scrub(text))
    if isinstance(exc, requests.exceptions.Timeout):
        return GitHubError(scrub(f"{doing}: GitHub did not answer in time{_network_reason(exc)}"))
    if isinstance(exc, requests.exceptions.ConnectionError) and tls_refused(exc):
        return GitHubError(
            scrub(
                f"{doing}: GitHub's TLS certificate is not trusted{_network_reason(exc)}; "
                + CA_SETUP
            )
        )
    if isinstance(exc, (requests.exceptions.ConnectionError, requests.exceptions.RetryError)):
        return GitHubError(scrub(f"{doing}: cannot reach GitHub{_network_reason(exc)}"))
    if isinstance(exc, _JSON_ERRORS):
        return GitHubError(scrub(f"{doing}: GitHub sent an answer that is not valid JSON ({exc})"))
    return GitHubError(scrub(f"{doing}: {type(exc).__name__}: {exc}"))


_TLS_REFUSED = ("CERTIFICATE_VERIFY_FAILED", "certificate verify failed")
#: What to do about a certificate the runner does not trust (one clause of the error line).
CA_SETUP = (
    "for GitHub Enterprise Server with a private certificate authority, install its CA in "
    "the runner's trust store or point REQUESTS_CA_BUNDLE (or SSL_CERT_FILE) at its PEM file "
    "(inside the workspace for the container action)"
)


def tls_refused(exc: BaseException) -> bool:
    """Was the server's certificate not verified (not a network error: retrying cannot
    help)? Looks through the exception's causes."""
    seen: set[int] = set()
    todo: list[BaseException] = [exc]
    while todo:
        current = todo.pop()
        if id(current) in seen or len(seen) > 32:
            continue
        seen.add(id(current))
        if isinstance(current, ssl.SSLCertVerificationError):
            return True
        if any(mark in str(current) for mark in _TLS_REFUSED):
            return True
        for inner in (getattr(current, "reason", None), current.__cause__, current.__context__):
            if isinstance(inner, BaseException):
                todo.append(inner)
        todo.extend(a for a in current.args if isinstance(a, BaseException))
    return False


def _network_reason(exc: BaseException) -> str:
    """`` at HOST: <innermost cause>`` for a requests/urllib3 error chain (their own text
    nests three exceptions and the whole URL)."""
    where = ""
    request = getattr(exc, "request", None)
    url = getattr(request, "url", None)
    if isinstance(url, str):
        where = f" at {urlsplit(url).netloc}"
    current: BaseException = exc
    for _ in range(8):
        inner = getattr(current, "reason", None)
        if not isinstance(inner, BaseException):
            inner = next((a for a in current.args if isinstance(a, BaseException)), None)
        if inner is None:
            break
        current = inner
    text = next((a for a in reversed(current.args) if isinstance(a, str)), "") or str(current)
    if "Max retries exceeded" in text or not text:
        text = type(current).__name__
    return f"{where}: {text}"


# A truncated or garbled answer. Only the JSON decoders' own errors: our input errors
# (InvalidElf, InputError, ...) are ValueErrors too, and one raised inside a GitHub call must
# keep its own message rather than read "GitHub sent an answer that is not valid JSON".
_JSON_ERRORS: tuple[type[BaseException], ...] = (
    json.JSONDecodeError,
    requests.exceptions.JSONDecodeError,
)
TRANSIENT_ERRORS: tuple[type[BaseException], ...] = (
    requests.exceptions.ConnectionError,
    requests.exceptions.Timeout,
    requests.exceptions.ChunkedEncodingError,
    requests.exceptions.RetryError,
    *_JSON_ERRORS,
)
# Everything a PyGithub call can raise because of GitHub or the network: catch this, not
# just GithubException, or a dropped connection or a truncated answer becomes a traceback.
GITHUB_FAILURES: tuple[type[BaseException], ...] = (GithubException, *TRANSIENT_ERRORS)
_CAUGHT = GITHUB_FAILURES


@contextmanager
def github_errors(doing: str, *, not_found: str | None = None) -> Iterator[None]:
    """``with github_errors("listing runs of x.yml"):`` turns any GitHub failure raised in the
    block into a one-line :class:`GitHubError` (see :func:`github_error`)."""
    try:
        yield
    except WheelSizeError:  # already one line of ours (GitHubError or an input error)
        raise
    except _CAUGHT as exc:
        raise github_error(exc, doing, not_found=not_found) from exc


def may_have_been_stored(exc: BaseException) -> bool:
    """Did this failure possibly happen after GitHub carried the write out? 5xx answers,
    timeouts, dropped connections and garbled answers: yes. 4xx answers are refusals."""
    if isinstance(exc, GithubException):
        return exc.status >= 500
    if tls_refused(exc):
        return False  # the handshake failed: nothing was sent
    return isinstance(exc, TRANSIENT_ERRORS)


def create_once(
    create: Callable[[], T],
    find_existing: Callable[[], T | None],
    *,
    attempts: int = 3,
    pause: float = 0.0,
    doing: str = "writing to GitHub",
) -> T:
    """Create something exactly once although its answer may be lost.

    After a failure that may have happened once GitHub had stored the object (5xx, timeout,
    reset connection, truncated answer), look for it with ``find_existing`` first and return
    it when it is there; only otherwise send ``create`` again. Refusals (4xx) are raised at
    once. After ``attempts`` creates the last error is raised: a GithubException as it
    came, anything else (a dropped connection, a garbled answer) as a one-line GitHubError
    naming ``doing``, so no caller ever shows a traceback."""
    if attempts < 1:
        raise ValueError("attempts must be at least 1")
    last: BaseException | None = None
    for attempt in range(attempts):
        if attempt:
            if pause:
                time.sleep(pause)
            found = find_existing()
            if found is not None:
                return found
        try:
            return create()
        except Exception as exc:
            if not may_have_been_stored(exc):
                raise
            last = exc
    found = find_existing()
    if found is not None:
        return found
    assert last is not None
    if isinstance(last, GithubException):
        raise last
    raise github_error(last, doing) from last
