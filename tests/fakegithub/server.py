"""The fake GitHub REST server: a stdlib ThreadingHTTPServer on 127.0.0.1 holding its state
in memory, answering with GitHub's JSON shapes, pagination, rate-limit headers and errors,
plus fault injection (error answers, lost answers, connection resets, delays, truncation)."""

from __future__ import annotations

import contextlib
import hashlib
import json
import random
import re
import secrets
import socket
import struct
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime, timezone
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

from .gitrepo import GitRepo
from .model import (
    BOT,
    Artifact,
    Comment,
    Commit,
    FileChange,
    Ids,
    Issue,
    Job,
    Repo,
    Run,
    User,
    Workflow,
)
from .payloads import Payloads
from .query import (
    QueryError,
    link_header,
    page_params,
    parse_date_qualifier,
    parse_issue_query,
    parse_time,
    slice_page,
)

DOCS = "https://docs.github.com/rest"
BODY_LIMIT_CHARS = 65536
BODY_LIMIT_BYTES = 262144
RUN_FILTERS = ("actor", "branch", "check_suite_id", "created", "event", "head_sha", "status")
PERMISSION_LEVELS = {"none": 0, "read": 1, "write": 2}


# -- requests, answers, faults ------------------------------------------------------------


_RANGE = re.compile(r"bytes=(\d+)-(\d*)")


def _ranged(answer: Answer, spec: str | None) -> Answer:
    """A blob answer cut to ``Range: bytes=a-b`` (206 with Content-Range), as the artifact
    storage host does; 416 past the end; the whole blob without a Range header."""
    if spec is None or answer.status != 200:
        return answer
    m = _RANGE.fullmatch(spec.strip())
    total = len(answer.body)
    if m is None:
        return answer
    first = int(m.group(1))
    last = min(int(m.group(2)) if m.group(2) else total - 1, total - 1)
    if first >= total or last < first:
        return Answer(416, b"", {"Content-Range": f"bytes */{total}"}, resource="none")
    headers = {**answer.headers, "Content-Range": f"bytes {first}-{last}/{total}"}
    return Answer(206, answer.body[first : last + 1], headers, resource="none")


@dataclass
class LoggedRequest:
    """One request the fake received; iterates as ``(method, path, query, body)``."""

    method: str
    path: str
    query: dict[str, str]
    body: Any
    headers: dict[str, str] = field(default_factory=dict, repr=False)  # holds the token
    status: int | None = None  # what the fake answered (None: connection reset)
    fault: Fault | None = field(default=None, repr=False)
    time: float = field(default_factory=time.time, repr=False)  # wall clock when received

    def __iter__(self) -> Iterator[Any]:
        return iter((self.method, self.path, self.query, self.body))


@dataclass
class Answer:
    status: int
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)
    resource: str = "core"


@dataclass
class Fault:
    """An injected failure; see :meth:`FakeGitHub.fail`."""

    method: str | None
    path: re.Pattern[str] | None
    status: int | None
    times: int | None
    after: bool
    headers: dict[str, str]
    body: Any
    reset: bool
    delay: float
    truncate: bool
    skip: int = 0  # let this many matching requests through first
    hits: int = 0
    seen: int = 0
    # hold(): the request waits (before it is carried out) until ``release()``; ``reached``
    # is set once a request waits, so a test can act while it is in flight.
    gate: threading.Event | None = None
    reached: threading.Event = field(default_factory=threading.Event)

    def release(self) -> None:
        """Let the held request(s) through."""
        if self.gate is not None:
            self.gate.set()

    def matches(self, method: str, path: str) -> bool:
        if self.times is not None and self.hits >= self.times:
            return False
        if self.method is not None and self.method.upper() != method:
            return False
        return self.path is None or bool(self.path.search(path))


class HTTPError(Exception):
    """Raised inside handlers; becomes GitHub's error JSON."""

    def __init__(
        self,
        status: int,
        message: str,
        *,
        doc: str = DOCS,
        errors: list[dict[str, Any]] | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.doc = doc
        self.errors = errors
        self.headers = headers or {}

    def answer(self) -> Answer:
        payload: dict[str, Any] = {"message": self.message}
        if self.errors is not None:
            payload["errors"] = self.errors
        payload["documentation_url"] = self.doc
        payload["status"] = str(self.status)
        return Answer(self.status, _json(payload), dict(self.headers))


def _json(data: Any) -> bytes:
    return json.dumps(data).encode()


# -- routing ------------------------------------------------------------------------------

Handler = Callable[["FakeGitHub", "Context"], Answer]


@dataclass
class Context:
    method: str
    path: str  # without the API prefix
    query: dict[str, str]
    body: Any
    headers: dict[str, str]
    params: dict[str, str]
    url: str  # absolute URL of this resource without query (for Link headers)


@dataclass
class Route:
    method: str
    pattern: re.Pattern[str]
    handler: Handler
    permission: tuple[str, str] | None  # (scope, level) the token needs
    resource: str = "core"


_ROUTES: list[Route] = []
_REPO = r"/repos/(?P<owner>[^/]+)/(?P<repo>[^/]+)"


# Unauthenticated paths outside the API (signed storage URLs, log mirrors): prefix -> server.
_RAW_ROUTES: dict[str, Callable[[FakeGitHub, str], Answer]] = {}


def route(
    method: str,
    pattern: str,
    permission: tuple[str, str] | None = None,
    resource: str = "core",
    *,
    first: bool = False,
) -> Callable[[Handler], Handler]:
    """Register a handler; ``first``: before every other route (a more specific path that
    an earlier catch-all such as ``/commits/(?P<ref>.+)`` would swallow)."""

    def register(fn: Handler) -> Handler:
        entry = Route(method, re.compile(f"^{pattern}$"), fn, permission, resource)
        if first:
            _ROUTES.insert(0, entry)
        else:
            _ROUTES.append(entry)
        return fn

    return register


# -- the server ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Compared:
    """The answer of a compare, before it is written as JSON."""

    base: Commit
    head: Commit
    merge_base: Commit
    commits: list[Commit]  # oldest first
    files: list[FileChange]
    status: str  # ahead, behind, identical, diverged
    ahead_by: int
    behind_by: int


class FakeGitHub:
    """A fake api.github.com on 127.0.0.1 (see the module docstring and tests/fakegithub/README)."""

    def __init__(
        self,
        *,
        token: str | None = None,
        prefix: str = "",
        web_url: str = "https://github.com",
        rate_limit: int = 5000,
        search_rate_limit: int = 30,
        rate_window: float = 3600.0,
    ) -> None:
        self.token = token or "ghs_" + secrets.token_hex(18)
        self.prefix = prefix.rstrip("/")
        self.web_url = web_url.rstrip("/")
        self.ids = Ids()
        self.lock = threading.RLock()
        self.repos: dict[str, Repo] = {}
        self.runs: dict[int, Run] = {}
        self.artifacts: dict[int, Artifact] = {}
        self.jobs: dict[int, Job] = {}  # jobs of runs and check runs of other apps
        self.users: dict[str, User] = {}  # email -> user, for commit author/committer
        self.requests: list[LoggedRequest] = []
        self.faults: list[Fault] = []
        self.permissions: dict[str, str] | None = None
        self.accepted_header = True  # refusals name the permission they wanted
        self.search_lag = 0.0
        # Who the token is. token_user: a personal token of that login (GET /user answers
        # it; its writes are that user's). Else an installation token, whose GET /user
        # answers 403: a GitHub App's (token_app, e.g. "size-app[bot]", writes as it) or
        # the workflow's GITHUB_TOKEN (writes as github-actions[bot]).
        self.token_user: str | None = None
        self.token_app: str | None = None
        # GraphQL's ``viewer`` (POST /graphql; /api/graphql under an /api/v3 prefix) names
        # any token's login, an installation token's App included; False: refused (404).
        self.graphql_viewer = True
        # Each request waits a random 0..latency seconds before it is carried out (races
        # between concurrent runs interleave differently; ``latency_seed`` repeats one).
        self.latency = 0.0
        # GitHub's clock minus the runner's, in seconds: the Date header and every reset
        # time are on GitHub's clock (a runner clock an hour slow: clock_offset=3600).
        self.clock_offset = 0.0
        self.latency_rng = random.Random(0)
        self.patch_issue_body_quirk = (
            False  # GitHub silently ignores over-long PATCHed issue bodies
        )
        self.rate_limits = {"core": rate_limit, "search": search_rate_limit}
        self.rate_window = rate_window
        self._rate_used: dict[str, int] = {"core": 0, "search": 0}
        self._rate_reset: dict[str, float] = {}
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._git: dict[str, GitRepo] = {}
        self.port = 0

    # -- lifecycle ------------------------------------------------------------------------

    def start(self) -> FakeGitHub:
        handler = type("BoundHandler", (_RequestHandler,), {"fake": self})
        server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        server.daemon_threads = True
        server.handle_error = lambda request, client_address: None  # type: ignore[method-assign]
        self._server = server
        self.port = server.server_address[1]
        self._thread = threading.Thread(
            target=server.serve_forever, args=(0.02,), name="fake-github", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> FakeGitHub:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def url(self) -> str:
        """The API base URL (what GITHUB_API_URL should be)."""
        return f"http://127.0.0.1:{self.port}{self.prefix}"

    @property
    def payloads(self) -> Payloads:
        return Payloads(self.url, self.web_url)

    def env(self) -> dict[str, str]:
        return {"GITHUB_API_URL": self.url, "GITHUB_TOKEN": self.token}

    # -- world building -------------------------------------------------------------------

    def add_repo(
        self,
        full_name: str,
        git_dir: str | Path | None = None,
        has_issues: bool = True,
        *,
        private: bool = False,
        default_branch: str = "main",
    ) -> Repo:
        owner, _, name = full_name.partition("/")
        repo = Repo(
            fake=self,
            id=self.ids.next("repo"),
            owner=owner,
            name=name,
            git_dir=Path(git_dir) if git_dir is not None else None,
            has_issues=has_issues,
            private=private,
            default_branch=default_branch,
        )
        with self.lock:
            self.repos[full_name.lower()] = repo
            if repo.git_dir is not None:
                self._git[full_name.lower()] = GitRepo(repo.git_dir)
        return repo

    def add_user(self, login: str, email: str, id: int | None = None) -> User:
        """Map a git e-mail to a GitHub user (commit ``author``/``committer`` objects)."""
        user = User(login, id if id is not None else 5000000 + len(self.users))
        with self.lock:
            self.users[email.lower()] = user
        return user

    def set_permissions(
        self, permissions: dict[str, str] | None, *, accepted_header: bool = True
    ) -> None:
        """Like a workflow's ``permissions:`` block: named scopes get their level, every other
        scope ``none`` (metadata stays readable). ``None`` restores full access. Without
        ``accepted_header`` a refusal names no permission (GitHub Enterprise Server, classic
        tokens: no ``X-Accepted-GitHub-Permissions``)."""
        with self.lock:
            self.permissions = None if permissions is None else dict(permissions)
            self.accepted_header = accepted_header

    def set_rate_limit(
        self, limit: int, *, resource: str = "core", window: float | None = None, used: int = 0
    ) -> None:
        """Change a primary rate limit; once ``used`` reaches ``limit`` the fake answers 403
        "API rate limit exceeded" until the window resets."""
        with self.lock:
            self.rate_limits[resource] = limit
            self._rate_used[resource] = used
            if window is not None:
                self.rate_window = window
            self._rate_reset.pop(resource, None)

    # -- faults ---------------------------------------------------------------------------

    def fail(
        self,
        method: str | None = "POST",
        path: str | None = r"/issues$",
        status: int | None = 502,
        times: int | None = 1,
        after: bool = False,
        headers: dict[str, str] | None = None,
        body: Any = None,
        reset: bool = False,
        delay: float = 0.0,
        truncate: bool = False,
        skip: int = 0,
    ) -> Fault:
        """Inject a fault for the next ``times`` matching requests (None: all of them).

        ``method``/``path`` (a regex searched in the request path) select requests.
        ``status``: answer that status with ``body`` (JSON-encoded unless bytes; default a
        basic-error). ``reset``: drop the connection with a TCP RST instead of answering.
        ``delay``: sleep before answering (client timeouts). ``truncate``: cut the JSON body in
        half. ``after=True``: carry the request out first, then fail the answer (a lost
        answer: GitHub stored the write but the client never hears so). Set ``status=None`` for
        a delay/truncation/reset of the real answer. ``skip``: let the first ``skip`` matching
        requests through untouched (a fault in the middle of a job)."""
        fault = Fault(
            method=method.upper() if method else None,
            path=re.compile(path) if path else None,
            status=None if reset else status,
            times=times,
            after=after,
            headers=dict(headers or {}),
            body=body,
            reset=reset,
            delay=delay,
            truncate=truncate,
            skip=skip,
        )
        with self.lock:
            self.faults.append(fault)
        return fault

    def hold(
        self,
        method: str | None = "POST",
        path: str | None = r"/issues$",
        *,
        times: int = 1,
        skip: int = 0,
    ) -> Fault:
        """Hold the next ``times`` matching requests before they are carried out, until
        ``fault.release()``; ``fault.reached`` is set when one waits. For races: run A's
        create waits while run B does its whole job, then A's goes through (no sleeps)."""
        fault = self.fail(method, path, None, times=times, skip=skip)
        fault.gate = threading.Event()
        return fault

    def fail_primary_rate_limit(
        self,
        method: str | None = None,
        path: str | None = None,
        *,
        times: int | None = 1,
        reset_in: float = 1.0,
        status: int = 403,
        skip: int = 0,
    ) -> Fault:
        """A primary rate-limit answer: 403 (or 429) "API rate limit exceeded for …" with
        ``x-ratelimit-remaining: 0`` and ``x-ratelimit-reset`` ``reset_in`` seconds ahead."""
        reset = int(time.time() + self.clock_offset + reset_in + 0.999)
        return self.fail(
            method,
            path,
            status,
            times=times,
            skip=skip,
            headers={
                "x-ratelimit-remaining": "0",
                "x-ratelimit-used": str(self.rate_limits["core"]),
                "x-ratelimit-reset": str(reset),
            },
            body={
                "message": "API rate limit exceeded for installation ID 1234567. If you reach out "
                "to "
                "GitHub Support for help, please include the request ID 0000:1111:2222:3333.",
                "documentation_url": "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api",
                "status": str(status),
            },
        )

    def fail_secondary_rate_limit(
        self,
        method: str | None = None,
        path: str | None = None,
        *,
        times: int | None = 1,
        status: int = 403,
        retry_after: float | None = None,
        skip: int = 0,
    ) -> Fault:
        """A secondary rate-limit answer (403 or 429), with ``Retry-After`` when given."""
        headers = {} if retry_after is None else {"Retry-After": str(retry_after)}
        return self.fail(
            method,
            path,
            status,
            times=times,
            skip=skip,
            headers=headers,
            body={
                "message": "You have exceeded a secondary rate limit. Please wait a few minutes "
                "before you try again. If you reach out to GitHub Support for help, please include "
                "the request ID 0000:1111:2222:3333.",
                "documentation_url": "https://docs.github.com/free-pro-team@latest/rest/overview/"
                "rate-limits-for-the-rest-api#about-secondary-rate-limits",
                "status": str(status),
            },
        )

    def clear_faults(self) -> None:
        with self.lock:
            self.faults.clear()

    # -- inspection -----------------------------------------------------------------------

    def count(self, method: str | None = None, path_regex: str | None = None) -> int:
        """Number of logged requests with this method and a path matching the regex."""
        pattern = re.compile(path_regex) if path_regex else None
        with self.lock:
            return sum(
                1
                for r in self.requests
                if (method is None or r.method == method.upper())
                and (pattern is None or pattern.search(r.path))
            )

    def repo(self, full_name: str) -> Repo:
        return self.repos[full_name.lower()]

    # -- request plumbing (called by the handler) -----------------------------------------

    def _match_fault(self, method: str, path: str) -> Fault | None:
        with self.lock:
            for fault in self.faults:
                if fault.matches(method, path):
                    fault.seen += 1
                    if fault.seen <= fault.skip:
                        continue
                    fault.hits += 1
                    return fault
        return None

    def _fault_answer(self, fault: Fault) -> Answer:
        assert fault.status is not None
        if isinstance(fault.body, bytes):
            body = fault.body
        elif fault.body is None:
            phrase = (
                HTTPStatus(fault.status).phrase
                if fault.status in HTTPStatus._value2member_map_
                else "Error"
            )
            body = _json(
                {"message": phrase, "documentation_url": DOCS, "status": str(fault.status)}
            )
        else:
            body = _json(fault.body)
        return Answer(fault.status, body, dict(fault.headers))

    def _rate_headers(self, resource: str, count: bool) -> tuple[dict[str, str], bool]:
        """Account one request; returns the headers and whether the limit is exhausted."""
        now = time.time()
        with self.lock:
            reset = self._rate_reset.get(resource)
            if reset is None or now >= reset:
                reset = now + self.rate_window
                self._rate_reset[resource] = reset
                self._rate_used[resource] = 0
            limit = self.rate_limits.get(resource, 5000)
            exhausted = self._rate_used.get(resource, 0) >= limit
            if count and not exhausted:
                self._rate_used[resource] = self._rate_used.get(resource, 0) + 1
            used = self._rate_used.get(resource, 0)
        return {
            "x-ratelimit-limit": str(limit),
            "x-ratelimit-remaining": str(max(0, limit - used)),
            "x-ratelimit-reset": str(int(reset + self.clock_offset)),
            "x-ratelimit-used": str(used),
            "x-ratelimit-resource": resource,
        }, exhausted

    def _dispatch(
        self, method: str, raw_path: str, query: dict[str, str], body: Any, headers: dict[str, str]
    ) -> Answer:
        path = raw_path
        if self.prefix and method == "POST" and raw_path.rstrip("/") == _graphql_path(self.prefix):
            path = "/graphql"  # GraphQL lives beside the REST prefix (/api/graphql)
        elif self.prefix:
            if not path.startswith(self.prefix + "/") and path != self.prefix:
                return HTTPError(404, "Not Found").answer()
            path = path[len(self.prefix) :] or "/"
        path = path.rstrip("/") or "/"
        if method == "GET" and path.startswith("/_blobs/"):
            return _ranged(self._blob(path), headers.get("range"))
        for prefix, serve in _RAW_ROUTES.items():
            if method == "GET" and path.startswith(prefix):
                return serve(self, path)
        for r in _ROUTES:
            if r.method != method:
                continue
            m = r.pattern.match(path)
            if not m:
                continue
            ctx = Context(
                method=method,
                path=path,
                query=query,
                body=body,
                headers=headers,
                params={k: unquote(v) for k, v in m.groupdict().items()},
                url=f"http://127.0.0.1:{self.port}{raw_path}",
            )
            return self._call(r, ctx)
        try:
            self._authenticate(headers)
        except HTTPError as exc:
            return exc.answer()
        return HTTPError(404, "Not Found").answer()

    def _authenticate(self, headers: dict[str, str]) -> None:
        auth = headers.get("authorization", "")
        scheme, _, value = auth.partition(" ")
        if not auth:
            raise HTTPError(401, "Requires authentication")
        if scheme.lower() not in ("token", "bearer") or value.strip() != self.token:
            raise HTTPError(401, "Bad credentials")

    def _call(self, r: Route, ctx: Context) -> Answer:
        rate, exhausted = self._rate_headers(r.resource, count=r.resource != "none")
        try:
            self._authenticate(ctx.headers)
            if exhausted:
                raise HTTPError(
                    403,
                    "API rate limit exceeded for installation ID 1234567.",
                    doc="https://docs.github.com/rest/overview/rate-limits-for-the-rest-api",
                )
            with self.lock:
                if r.permission is not None:
                    self._check_permission(r.permission)
                answer = r.handler(self, ctx)
        except HTTPError as exc:
            answer = exc.answer()
        except QueryError as exc:
            answer = HTTPError(422, f"Validation Failed: {exc}").answer()
        answer.headers = {**rate, **answer.headers}
        return answer

    def _check_permission(self, needed: tuple[str, str]) -> None:
        if self.permissions is None:
            return
        scope, level = needed
        have = self.permissions.get(scope, "none")
        if PERMISSION_LEVELS.get(have, 0) < PERMISSION_LEVELS[level]:
            raise HTTPError(
                403,
                "Resource not accessible by integration",
                headers={"X-Accepted-GitHub-Permissions": f"{scope}={level}"}
                if self.accepted_header
                else {},
            )

    # -- helpers for handlers -------------------------------------------------------------

    def _repo(self, ctx: Context) -> Repo:
        repo = self.repos.get(f"{ctx.params['owner']}/{ctx.params['repo']}".lower())
        if repo is None:
            raise HTTPError(404, "Not Found", doc=f"{DOCS}/repos/repos#get-a-repository")
        return repo

    def _issues_repo(self, ctx: Context) -> Repo:
        repo = self._repo(ctx)
        if not repo.has_issues:
            raise HTTPError(
                410, "Issues are disabled for this repository", doc=f"{DOCS}/issues/issues"
            )
        return repo

    def writer(self) -> User:
        """The author of what the token writes (see ``token_user``)."""
        from .model import user_named

        login = self.token_user or self.token_app
        return BOT if login is None else user_named(login)

    def _ok(self, data: Any, status: int = 200, headers: dict[str, str] | None = None) -> Answer:
        return Answer(status, _json(data), dict(headers or {}))

    def _page(
        self,
        ctx: Context,
        items: list[Any],
        *,
        total: int | None = None,
        default: int = 30,
        maximum: int = 100,
    ) -> tuple[list[Any], dict[str, str]]:
        per_page, page = page_params(ctx.query, default=default, maximum=maximum)
        link = link_header(
            ctx.url, ctx.query, page, per_page, len(items) if total is None else total
        )
        return slice_page(items, per_page, page), ({"Link": link} if link else {})

    def _blob(self, path: str) -> Answer:
        parts = path.split("/")
        try:
            artifact = self.artifacts[int(parts[2])]
        except (IndexError, ValueError, KeyError):
            return Answer(
                404,
                b"<Error><Code>BlobNotFound</Code></Error>",
                {"Content-Type": "application/xml"},
            )
        data = artifact.zip_bytes()
        return Answer(200, data, {"Content-Type": "application/zip"}, resource="none")

    def _user_for(self, name: str, email: str) -> dict[str, Any]:
        user = self.users.get(email.lower())
        if user is None and email.lower().endswith("@users.noreply.github.com"):
            local = email.split("@", 1)[0]
            ident, plus, login = local.partition("+")
            if not plus:
                login, ident = local, "0"
            user = User(login, int(ident) if ident.isdigit() else 0)
        return {} if user is None else self.payloads.user(user)

    # -- commits from a git directory or added by hand ------------------------------------

    def _resolve(self, repo: Repo, ref: str) -> Commit | None:
        if ref in repo.commits:
            return repo.commits[ref]
        if ref in repo.refs:
            return repo.commits.get(repo.refs[ref])
        if len(ref) >= 7 and re.fullmatch(r"[0-9a-f]+", ref):
            matches = [c for sha, c in repo.commits.items() if sha.startswith(ref)]
            if len(matches) == 1:
                return matches[0]
        git = self._git.get(repo.full_name.lower())
        if git is not None:
            sha = git.resolve(ref)
            if sha is not None:
                return git.commit(sha)
        return None

    def _files(self, repo: Repo, commit: Commit) -> list[FileChange]:
        git = self._git.get(repo.full_name.lower())
        if commit.sha in repo.commits or git is None:
            return commit.files
        return git.diff(commit.parents[0] if commit.parents else None, commit.sha)

    def _ancestors(self, repo: Repo, sha: str) -> list[Commit]:
        """Added-commit ancestry (inclusive), for compares without a git directory."""
        seen: dict[str, Commit] = {}
        stack = [sha]
        while stack:
            current = stack.pop()
            if current in seen or current not in repo.commits:
                continue
            commit = repo.commits[current]
            seen[current] = commit
            stack.extend(commit.parents)
        return list(seen.values())

    def compare_refs(self, repo: Repo, base_ref: str, head_ref: str) -> Compared | None:
        """``base...head`` as GitHub's compare computes it (from the git directory, or the
        added commits' ancestry); None when either ref or a common ancestor is unknown.
        The HTTP route and the in-memory port (``memory.py``) both answer from this."""
        base = self._resolve(repo, base_ref)
        head = self._resolve(repo, head_ref)
        if base is None or head is None:
            return None
        git = self._git.get(repo.full_name.lower())
        if git is not None and base.sha not in repo.commits and head.sha not in repo.commits:
            ahead_by = git.count(f"{base.sha}..{head.sha}")
            behind_by = git.count(f"{head.sha}..{base.sha}")
            merge_base_sha = git.merge_base(base.sha, head.sha)
            if merge_base_sha is None:
                return None
            merge_base = git.commit(merge_base_sha)
            commits = git.log_range(base.sha, head.sha)
            files = git.diff(merge_base_sha, head.sha)
        else:
            head_anc = {c.sha: c for c in self._ancestors(repo, head.sha)}
            base_anc = {c.sha: c for c in self._ancestors(repo, base.sha)}
            commits = sorted(
                (c for s, c in head_anc.items() if s not in base_anc), key=_commit_sort_key
            )
            ahead_by = len(commits)
            behind_by = sum(1 for s in base_anc if s not in head_anc)
            common = [c for s, c in head_anc.items() if s in base_anc]
            if not common:
                return None
            merge_base = max(common, key=_commit_sort_key)
            changed: dict[str, FileChange] = {}
            for c in commits:
                for f in c.files:
                    changed[f.filename] = f
            files = list(changed.values())
        if ahead_by and behind_by:
            status = "diverged"
        elif ahead_by:
            status = "ahead"
        elif behind_by:
            status = "behind"
        else:
            status = "identical"
        return Compared(base, head, merge_base, commits, files, status, ahead_by, behind_by)


def _commit_sort_key(commit: Commit) -> tuple[datetime, str]:
    return (commit.committer_date, commit.sha)


# -- the HTTP handler ---------------------------------------------------------------------


class _RequestHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # Headers and body go out in two writes: without TCP_NODELAY, Nagle's algorithm holds
    # the body until the client's delayed ACK, ~40 ms a request on Linux.
    disable_nagle_algorithm = True
    server_version = "GitHub.com"
    sys_version = ""
    fake: FakeGitHub

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def date_time_string(self, timestamp: float | None = None) -> str:
        """The Date header, on GitHub's clock (``clock_offset``)."""
        now = time.time() + self.fake.clock_offset if timestamp is None else timestamp
        return super().date_time_string(now)

    def finish(self) -> None:
        with contextlib.suppress(OSError):
            super().finish()

    def do_GET(self) -> None:
        self._serve("GET")

    def do_POST(self) -> None:
        self._serve("POST")

    def do_PATCH(self) -> None:
        self._serve("PATCH")

    def do_PUT(self) -> None:
        self._serve("PUT")

    def do_DELETE(self) -> None:
        self._serve("DELETE")

    def _serve(self, method: str) -> None:
        fake = self.fake
        parts = urlsplit(self.path)
        query = {k: v[-1] for k, v in parse_qs(parts.query, keep_blank_values=True).items()}
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        body: Any = None
        bad_json = False
        if raw:
            try:
                body = json.loads(raw)
            except ValueError:
                body, bad_json = raw.decode("utf-8", "replace"), True
        headers = {k.lower(): v for k, v in self.headers.items()}
        logged = LoggedRequest(method, parts.path, query, body, headers)
        with fake.lock:
            fake.requests.append(logged)
        if fake.latency:
            with fake.lock:
                pause = fake.latency_rng.uniform(0, fake.latency)
            time.sleep(pause)
        fault = fake._match_fault(method, parts.path)
        logged.fault = fault
        if fault is not None and fault.gate is not None:
            fault.reached.set()
            fault.gate.wait()
        if fault is not None and not fault.after:
            if fault.delay:
                time.sleep(fault.delay)
            if fault.reset:
                self._reset()
                return
            if fault.status is not None:
                answer = fake._fault_answer(fault)
                rate, _ = fake._rate_headers("core", count=True)
                answer.headers = {**rate, **answer.headers}
                self._send(answer, logged, truncate=fault.truncate)
                return
        if bad_json:
            answer = HTTPError(400, "Problems parsing JSON").answer()
        else:
            answer = fake._dispatch(method, parts.path, query, body, headers)
        if fault is not None and fault.after:
            if fault.delay:
                time.sleep(fault.delay)
            if fault.reset:
                self._reset()
                return
            if fault.status is not None:
                rate = {k: v for k, v in answer.headers.items() if k.startswith("x-ratelimit")}
                answer = fake._fault_answer(fault)
                answer.headers = {**rate, **answer.headers}
        self._send(answer, logged, truncate=fault is not None and fault.truncate)

    def _send(self, answer: Answer, logged: LoggedRequest, *, truncate: bool = False) -> None:
        body = answer.body
        if truncate and body:
            body = body[: max(1, len(body) // 2)]
        logged.status = answer.status
        # Streamed without Content-Length: the body ends when the connection closes.
        no_length = answer.headers.pop("X-Fake-No-Length", None) is not None
        headers = {
            "Content-Type": "application/json; charset=utf-8",
            "X-GitHub-Media-Type": "github.v3; format=json",
            "X-GitHub-Request-Id": hashlib.sha1(str(id(logged)).encode()).hexdigest()[:20].upper(),
            **answer.headers,
        }
        try:
            self.send_response(answer.status)
            for name, value in headers.items():
                self.send_header(name, value)
            if no_length:
                self.send_header("Connection", "close")
                self.close_connection = True
            else:
                self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            self.wfile.flush()
        except OSError:
            self.close_connection = True

    def _reset(self) -> None:
        self.close_connection = True
        try:
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            self.connection.close()
        except OSError:
            pass


# -- endpoint handlers --------------------------------------------------------------------

ACTIONS_READ = ("actions", "read")
CONTENTS_READ = ("contents", "read")
ISSUES_READ = ("issues", "read")
ISSUES_WRITE = ("issues", "write")


@route("GET", r"/rate_limit", resource="none")
def _rate_limit(fake: FakeGitHub, ctx: Context) -> Answer:
    resources = {}
    for name in ("core", "search"):
        headers, _ = fake._rate_headers(name, count=False)
        resources[name] = {
            "limit": int(headers["x-ratelimit-limit"]),
            "used": int(headers["x-ratelimit-used"]),
            "remaining": int(headers["x-ratelimit-remaining"]),
            "reset": int(headers["x-ratelimit-reset"]),
        }
    return fake._ok({"resources": resources, "rate": resources["core"]})


def _graphql_path(prefix: str) -> str:
    return prefix.removesuffix("/v3") + "/graphql"


@route("POST", r"/graphql")
def _graphql(fake: FakeGitHub, ctx: Context) -> Answer:
    """Only ``viewer { login }``: who the token writes as (an App's ``slug[bot]`` too)."""
    query = ctx.body.get("query", "") if isinstance(ctx.body, dict) else ""
    if not fake.graphql_viewer or "viewer" not in str(query):
        raise HTTPError(404, "Not Found", doc=f"{DOCS}/graphql")
    return fake._ok({"data": {"viewer": {"login": fake.writer().login}}})


@route("GET", r"/user")
def _get_user(fake: FakeGitHub, ctx: Context) -> Answer:
    """The token's user; an installation token has none (GitHub answers 403)."""
    if fake.token_user is None:
        raise HTTPError(
            403,
            "Resource not accessible by integration",
            doc=f"{DOCS}/users/users#get-the-authenticated-user",
        )
    return fake._ok(fake.payloads.user(fake.writer()))


@route("GET", _REPO)
def _get_repo(fake: FakeGitHub, ctx: Context) -> Answer:
    return fake._ok(fake.payloads.full_repo(fake._repo(ctx)))


# -- actions


def _workflow(fake: FakeGitHub, repo: Repo, ident: str) -> Workflow:
    for wf in repo.workflows:
        if ident == str(wf.id) or ident == wf.file_name:
            return wf
    raise HTTPError(404, "Not Found", doc=f"{DOCS}/actions/workflows#get-a-workflow")


@route("GET", _REPO + r"/actions/workflows", ACTIONS_READ)
def _list_workflows(fake: FakeGitHub, ctx: Context) -> Answer:
    repo = fake._repo(ctx)
    page, link = fake._page(ctx, repo.workflows)
    return fake._ok(
        {
            "total_count": len(repo.workflows),
            "workflows": [fake.payloads.workflow(w) for w in page],
        },
        headers=link,
    )


@route("GET", _REPO + r"/actions/workflows/(?P<wf>[^/]+)", ACTIONS_READ)
def _get_workflow(fake: FakeGitHub, ctx: Context) -> Answer:
    return fake._ok(fake.payloads.workflow(_workflow(fake, fake._repo(ctx), ctx.params["wf"])))


def _filter_runs(runs: list[Run], query: dict[str, str]) -> list[Run]:
    selected = list(runs)
    if "branch" in query:
        selected = [r for r in selected if r.head_branch == query["branch"]]
    if "event" in query:
        selected = [r for r in selected if r.event == query["event"]]
    if "actor" in query:
        selected = [r for r in selected if r.actor.lower() == query["actor"].lower()]
    if "head_sha" in query:
        selected = [r for r in selected if r.head_sha == query["head_sha"]]
    if "status" in query:
        wanted = query["status"]
        selected = [r for r in selected if wanted in (r.status, r.conclusion)]
    if "check_suite_id" in query:
        selected = [r for r in selected if str(r.check_suite_id) == query["check_suite_id"]]
    if "created" in query:
        window = parse_date_qualifier(query["created"])
        selected = [r for r in selected if r.created_at in window]
    selected.sort(key=lambda r: (r.created_at, r.id), reverse=True)
    return selected


def _runs_answer(fake: FakeGitHub, ctx: Context, runs: list[Run]) -> Answer:
    selected = _filter_runs(runs, ctx.query)
    total = len(selected)
    # Filtered listings return at most 1,000 results; total_count still tells the truth.
    reachable = selected[:1000] if any(k in ctx.query for k in RUN_FILTERS) else selected
    page, link = fake._page(ctx, reachable)
    return fake._ok(
        {"total_count": total, "workflow_runs": [fake.payloads.run(r) for r in page]}, headers=link
    )


@route("GET", _REPO + r"/actions/workflows/(?P<wf>[^/]+)/runs", ACTIONS_READ)
def _list_workflow_runs(fake: FakeGitHub, ctx: Context) -> Answer:
    wf = _workflow(fake, fake._repo(ctx), ctx.params["wf"])
    return _runs_answer(fake, ctx, wf.runs)


@route("GET", _REPO + r"/actions/runs", ACTIONS_READ)
def _list_repo_runs(fake: FakeGitHub, ctx: Context) -> Answer:
    repo = fake._repo(ctx)
    return _runs_answer(fake, ctx, [r for wf in repo.workflows for r in wf.runs])


def _run(fake: FakeGitHub, repo: Repo, ident: str) -> Run:
    run = fake.runs.get(int(ident)) if ident.isdigit() else None
    if run is None or run.workflow.repo is not repo:
        raise HTTPError(404, "Not Found", doc=f"{DOCS}/actions/workflow-runs#get-a-workflow-run")
    return run


@route("GET", _REPO + r"/actions/runs/(?P<run>\d+)", ACTIONS_READ)
def _get_run(fake: FakeGitHub, ctx: Context) -> Answer:
    return fake._ok(fake.payloads.run(_run(fake, fake._repo(ctx), ctx.params["run"])))


def _artifacts_answer(fake: FakeGitHub, ctx: Context, artifacts: list[Artifact]) -> Answer:
    selected = list(artifacts)
    if "name" in ctx.query:
        selected = [a for a in selected if a.name == ctx.query["name"]]
    descending = ctx.query.get("direction", "desc") != "asc"
    selected.sort(key=lambda a: (a.created_at, a.id), reverse=descending)
    page, link = fake._page(ctx, selected)
    return fake._ok(
        {"total_count": len(selected), "artifacts": [fake.payloads.artifact(a) for a in page]},
        headers=link,
    )


@route("GET", _REPO + r"/actions/runs/(?P<run>\d+)/artifacts", ACTIONS_READ)
def _list_run_artifacts(fake: FakeGitHub, ctx: Context) -> Answer:
    run = _run(fake, fake._repo(ctx), ctx.params["run"])
    return _artifacts_answer(fake, ctx, run.artifacts)


@route("GET", _REPO + r"/actions/artifacts", ACTIONS_READ)
def _list_repo_artifacts(fake: FakeGitHub, ctx: Context) -> Answer:
    repo = fake._repo(ctx)
    return _artifacts_answer(
        fake, ctx, [a for wf in repo.workflows for r in wf.runs for a in r.artifacts]
    )


def _artifact(fake: FakeGitHub, repo: Repo, ident: str) -> Artifact:
    artifact = fake.artifacts.get(int(ident)) if ident.isdigit() else None
    if artifact is None or artifact.run.workflow.repo is not repo:
        raise HTTPError(404, "Not Found", doc=f"{DOCS}/actions/artifacts#get-an-artifact")
    return artifact


@route("GET", _REPO + r"/actions/artifacts/(?P<artifact>\d+)", ACTIONS_READ)
def _get_artifact(fake: FakeGitHub, ctx: Context) -> Answer:
    return fake._ok(
        fake.payloads.artifact(_artifact(fake, fake._repo(ctx), ctx.params["artifact"]))
    )


@route("GET", _REPO + r"/actions/artifacts/(?P<artifact>\d+)/(?P<fmt>[^/]+)", ACTIONS_READ)
def _download_artifact(fake: FakeGitHub, ctx: Context) -> Answer:
    artifact = _artifact(fake, fake._repo(ctx), ctx.params["artifact"])
    if ctx.params["fmt"] != "zip":
        raise HTTPError(404, "Not Found", doc=f"{DOCS}/actions/artifacts#download-an-artifact")
    if artifact.expired:
        raise HTTPError(
            410, "Artifact has expired", doc=f"{DOCS}/actions/artifacts#download-an-artifact"
        )
    location = f"{fake.url}/_blobs/{artifact.id}/{secrets.token_hex(8)}?sig={secrets.token_hex(8)}"
    return Answer(302, b"", {"Location": location, "Content-Type": "text/html;charset=utf-8"})


# -- commits


@route("GET", _REPO + r"/commits/(?P<ref>.+)", CONTENTS_READ)
def _get_commit(fake: FakeGitHub, ctx: Context) -> Answer:
    repo = fake._repo(ctx)
    ref = ctx.params["ref"]
    commit = fake._resolve(repo, ref)
    if commit is None:
        raise HTTPError(
            422, f"No commit found for SHA: {ref}", doc=f"{DOCS}/commits/commits#get-a-commit"
        )
    files = fake._files(repo, commit)[:3000]
    page, link = fake._page(ctx, files, default=300, maximum=300)
    data = fake.payloads.commit(repo, commit, user_for=fake._user_for, files=page, with_stats=True)
    if files is not page:
        additions = sum(f.additions for f in files)
        deletions = sum(f.deletions for f in files)
        data["stats"] = {
            "total": additions + deletions,
            "additions": additions,
            "deletions": deletions,
        }
    return fake._ok(data, headers=link)


@route("GET", _REPO + r"/compare/(?P<basehead>.+)", CONTENTS_READ)
def _compare(fake: FakeGitHub, ctx: Context) -> Answer:
    repo = fake._repo(ctx)
    basehead = ctx.params["basehead"]
    base_ref, sep, head_ref = basehead.partition("...")
    if not sep:
        base_ref, sep, head_ref = basehead.partition("..")
    not_found = HTTPError(404, "Not Found", doc=f"{DOCS}/commits/commits#compare-two-commits")
    if not sep or not base_ref or not head_ref:
        raise not_found
    found = fake.compare_refs(repo, base_ref, head_ref)
    if found is None:
        raise not_found
    base, head, merge_base = found.base, found.head, found.merge_base
    commits, files, status = found.commits, found.files, found.status
    ahead_by, behind_by = found.ahead_by, found.behind_by
    p = fake.payloads
    r = p.repo_url(repo)
    web = f"{p.web}/{repo.full_name}"
    data: dict[str, Any] = {
        "url": f"{r}/compare/{basehead}",
        "html_url": f"{web}/compare/{basehead}",
        "permalink_url": f"{web}/compare/{repo.owner}:{base.sha}...{repo.owner}:{head.sha}",
        "diff_url": f"{web}/compare/{basehead}.diff",
        "patch_url": f"{web}/compare/{basehead}.patch",
        "base_commit": p.commit(repo, base, user_for=fake._user_for),
        "merge_base_commit": p.commit(repo, merge_base, user_for=fake._user_for),
        "status": status,
        "ahead_by": ahead_by,
        "behind_by": behind_by,
        "total_commits": len(commits),
    }
    headers: dict[str, str] = {}
    paged = "per_page" in ctx.query or "page" in ctx.query
    if paged:
        page, headers = fake._page(ctx, commits)
        first = page_params(ctx.query)[1] == 1
        data["commits"] = [p.commit(repo, c, user_for=fake._user_for) for c in page]
        if first:
            data["files"] = [p.diff_entry(repo, head.sha, f) for f in files[:300]]
    else:
        data["commits"] = [p.commit(repo, c, user_for=fake._user_for) for c in commits[-250:]]
        data["files"] = [p.diff_entry(repo, head.sha, f) for f in files[:300]]
    return fake._ok(data, headers=headers)


# -- issues


def _check_body(body: Any, resource: str, doc: str) -> None:
    if body is None:
        return
    if not isinstance(body, str):
        raise HTTPError(
            422,
            "Invalid request.\n\nFor 'properties/body', "
            f"{json.dumps(body)} is not a string or null.",
            doc=doc,
        )
    if len(body) > BODY_LIMIT_CHARS or len(body.encode()) > BODY_LIMIT_BYTES:
        if resource == "IssueComment":
            error = {
                "resource": "IssueComment",
                "code": "unprocessable",
                "field": "data",
                "message": "Body is too long (maximum is 65536 characters)",
            }
        else:
            error = {
                "resource": resource,
                "code": "custom",
                "field": "body",
                "message": "body is too long (maximum is 65536 characters)",
            }
        raise HTTPError(422, "Validation Failed", doc=doc, errors=[error])


def _label_names(value: Any) -> list[str]:
    if not isinstance(value, list):
        raise HTTPError(422, "Invalid request.\n\nFor 'properties/labels', value is not an array.")
    names = []
    for item in value:
        if isinstance(item, str):
            names.append(item)
        elif isinstance(item, dict) and isinstance(item.get("name"), str):
            names.append(item["name"])
        else:
            raise HTTPError(
                422, "Invalid request.\n\nFor 'items', value is not a string or object."
            )
    return names


def _issue(repo: Repo, number: str) -> Issue:
    issue = repo.issue(int(number))
    if issue is None:
        raise HTTPError(404, "Not Found", doc=f"{DOCS}/issues/issues#get-an-issue")
    return issue


def _now() -> datetime:
    return datetime.now(timezone.utc).replace(microsecond=0)


@route("GET", _REPO + r"/issues", ISSUES_READ)
def _list_issues(fake: FakeGitHub, ctx: Context) -> Answer:
    repo = fake._issues_repo(ctx)
    q = ctx.query
    state = q.get("state", "open")
    items = [i for i in repo.issues if state == "all" or i.state == state]
    if q.get("labels"):
        wanted = {n.strip().lower() for n in q["labels"].split(",") if n.strip()}
        items = [i for i in items if wanted <= {n.lower() for n in i.label_names}]
    if q.get("creator"):
        items = [i for i in items if i.user.login.lower() == q["creator"].lower()]
    if q.get("since"):
        since = parse_time(q["since"])
        items = [i for i in items if i.updated_at >= since]
    sort = q.get("sort", "created")
    keys: dict[str, Callable[[Issue], Any]] = {
        "created": lambda i: (i.created_at, i.number),
        "updated": lambda i: (i.updated_at, i.number),
        "comments": lambda i: (len(i.comments), i.number),
    }
    items.sort(key=keys.get(sort, keys["created"]), reverse=q.get("direction", "desc") != "asc")
    page, link = fake._page(ctx, items)
    return fake._ok([fake.payloads.issue(i) for i in page], headers=link)


@route("POST", _REPO + r"/issues", ISSUES_WRITE)
def _create_issue(fake: FakeGitHub, ctx: Context) -> Answer:
    repo = fake._issues_repo(ctx)
    doc = f"{DOCS}/issues/issues#create-an-issue"
    body = ctx.body
    if not isinstance(body, dict):
        raise HTTPError(400, "Problems parsing JSON", doc=doc)
    title = body.get("title")
    if title is None or title == "":
        raise HTTPError(422, 'Invalid request.\n\n"title" wasn\'t supplied.', doc=doc)
    if not isinstance(title, (str, int)):
        raise HTTPError(
            422,
            "Invalid request.\n\nFor 'properties/title', value is not a string or integer.",
            doc=doc,
        )
    _check_body(body.get("body"), "Issue", doc)
    labels = _label_names(body.get("labels", []))
    issue = repo._new_issue(str(title), body.get("body"), labels, user=fake.writer())
    data = fake.payloads.issue(issue)
    return fake._ok(data, 201, {"Location": data["url"]})


@route("GET", _REPO + r"/issues/(?P<number>\d+)", ISSUES_READ)
def _get_issue(fake: FakeGitHub, ctx: Context) -> Answer:
    return fake._ok(fake.payloads.issue(_issue(fake._issues_repo(ctx), ctx.params["number"])))


@route("PATCH", _REPO + r"/issues/(?P<number>\d+)", ISSUES_WRITE)
def _update_issue(fake: FakeGitHub, ctx: Context) -> Answer:
    repo = fake._issues_repo(ctx)
    issue = _issue(repo, ctx.params["number"])
    doc = f"{DOCS}/issues/issues#update-an-issue"
    body = ctx.body if isinstance(ctx.body, dict) else {}
    if "body" in body:
        try:
            _check_body(body["body"], "Issue", doc)
        except HTTPError:
            if not fake.patch_issue_body_quirk:
                raise
            body = {k: v for k, v in body.items() if k != "body"}
    if "title" in body:
        if not body["title"]:
            raise HTTPError(
                422,
                "Validation Failed",
                doc=doc,
                errors=[{"resource": "Issue", "code": "missing_field", "field": "title"}],
            )
        issue.title = str(body["title"])
    if "body" in body:
        issue.body = body["body"]
    if "labels" in body:
        issue.labels = [repo._label(n) for n in _label_names(body["labels"])]
    if "state" in body:
        state = body["state"]
        if state not in ("open", "closed"):
            raise HTTPError(
                422,
                "Validation Failed",
                doc=doc,
                errors=[{"resource": "Issue", "code": "invalid", "field": "state"}],
            )
        if state == "closed" and issue.state != "closed":
            issue.closed_at = _now()
            issue.state_reason = body.get("state_reason") or "completed"
        elif state == "open" and issue.state != "open":
            issue.closed_at = None
            issue.state_reason = "reopened"
        issue.state = state
    if "state_reason" in body and body["state_reason"] is not None and "state" not in body:
        issue.state_reason = body["state_reason"]
    issue.updated_at = _now()
    return fake._ok(fake.payloads.issue(issue))


@route("GET", _REPO + r"/issues/(?P<number>\d+)/comments", ISSUES_READ)
def _list_comments(fake: FakeGitHub, ctx: Context) -> Answer:
    issue = _issue(fake._issues_repo(ctx), ctx.params["number"])
    comments = sorted(issue.comments, key=lambda c: c.id)
    if ctx.query.get("since"):
        since = parse_time(ctx.query["since"])
        comments = [c for c in comments if c.updated_at >= since]
    page, link = fake._page(ctx, comments)
    return fake._ok([fake.payloads.comment(c) for c in page], headers=link)


@route("POST", _REPO + r"/issues/(?P<number>\d+)/comments", ISSUES_WRITE)
def _create_comment(fake: FakeGitHub, ctx: Context) -> Answer:
    repo = fake._issues_repo(ctx)
    issue = _issue(repo, ctx.params["number"])
    doc = f"{DOCS}/issues/comments#create-an-issue-comment"
    body = ctx.body if isinstance(ctx.body, dict) else {}
    text = body.get("body")
    if not isinstance(text, str) or not text:
        raise HTTPError(422, 'Invalid request.\n\n"body" wasn\'t supplied.', doc=doc)
    _check_body(text, "IssueComment", doc)
    now = _now()
    comment = Comment(issue, fake.ids.next("comment"), text, fake.writer(), now, now)
    repo.comments.append(comment)
    issue.updated_at = now
    data = fake.payloads.comment(comment)
    return fake._ok(data, 201, {"Location": data["url"]})


def _comment(repo: Repo, ident: str) -> Comment:
    for comment in repo.comments:
        if str(comment.id) == ident:
            return comment
    raise HTTPError(404, "Not Found", doc=f"{DOCS}/issues/comments#get-an-issue-comment")


@route("GET", _REPO + r"/issues/comments/(?P<comment>\d+)", ISSUES_READ)
def _get_comment(fake: FakeGitHub, ctx: Context) -> Answer:
    return fake._ok(fake.payloads.comment(_comment(fake._issues_repo(ctx), ctx.params["comment"])))


@route("PATCH", _REPO + r"/issues/comments/(?P<comment>\d+)", ISSUES_WRITE)
def _update_comment(fake: FakeGitHub, ctx: Context) -> Answer:
    comment = _comment(fake._issues_repo(ctx), ctx.params["comment"])
    doc = f"{DOCS}/issues/comments#update-an-issue-comment"
    body = ctx.body if isinstance(ctx.body, dict) else {}
    text = body.get("body")
    if not isinstance(text, str) or not text:
        raise HTTPError(422, 'Invalid request.\n\n"body" wasn\'t supplied.', doc=doc)
    _check_body(text, "IssueComment", doc)
    comment.body = text
    comment.updated_at = _now()
    return fake._ok(fake.payloads.comment(comment))


@route("DELETE", _REPO + r"/issues/comments/(?P<comment>\d+)", ISSUES_WRITE)
def _delete_comment(fake: FakeGitHub, ctx: Context) -> Answer:
    repo = fake._issues_repo(ctx)
    comment = _comment(repo, ctx.params["comment"])
    repo.comments.remove(comment)
    return Answer(204, b"", {})


@route("GET", _REPO + r"/issues/comments", ISSUES_READ)
def _list_repo_comments(fake: FakeGitHub, ctx: Context) -> Answer:
    repo = fake._issues_repo(ctx)
    comments = sorted(
        repo.comments, key=lambda c: c.id, reverse=ctx.query.get("direction") == "desc"
    )
    page, link = fake._page(ctx, comments)
    return fake._ok([fake.payloads.comment(c) for c in page], headers=link)


# -- labels


@route("GET", _REPO + r"/labels", ISSUES_READ)
def _list_labels(fake: FakeGitHub, ctx: Context) -> Answer:
    repo = fake._repo(ctx)
    labels = sorted(repo.labels.values(), key=lambda label: label.name.lower())
    page, link = fake._page(ctx, labels)
    return fake._ok([fake.payloads.label(repo, label) for label in page], headers=link)


@route("GET", _REPO + r"/labels/(?P<name>[^/]+)", ISSUES_READ)
def _get_label(fake: FakeGitHub, ctx: Context) -> Answer:
    repo = fake._repo(ctx)
    label = repo.labels.get(ctx.params["name"].lower())
    if label is None:
        raise HTTPError(404, "Not Found", doc=f"{DOCS}/issues/labels#get-a-label")
    return fake._ok(fake.payloads.label(repo, label))


@route("POST", _REPO + r"/labels", ISSUES_WRITE)
def _create_label(fake: FakeGitHub, ctx: Context) -> Answer:
    repo = fake._repo(ctx)
    doc = f"{DOCS}/issues/labels#create-a-label"
    body = ctx.body if isinstance(ctx.body, dict) else {}
    name = body.get("name")
    if not isinstance(name, str) or not name:
        raise HTTPError(422, 'Invalid request.\n\n"name" wasn\'t supplied.', doc=doc)
    if name.lower() in repo.labels:
        raise HTTPError(
            422,
            "Validation Failed",
            doc=doc,
            errors=[{"resource": "Label", "code": "already_exists", "field": "name"}],
        )
    label = repo._label(
        name, str(body.get("color") or "ededed").lstrip("#"), body.get("description")
    )
    data = fake.payloads.label(repo, label)
    return fake._ok(data, 201, {"Location": data["url"]})


@route("GET", _REPO + r"/issues/(?P<number>\d+)/labels", ISSUES_READ)
def _list_issue_labels(fake: FakeGitHub, ctx: Context) -> Answer:
    repo = fake._issues_repo(ctx)
    issue = _issue(repo, ctx.params["number"])
    return fake._ok([fake.payloads.label(repo, label) for label in issue.labels])


@route("POST", _REPO + r"/issues/(?P<number>\d+)/labels", ISSUES_WRITE)
def _add_issue_labels(fake: FakeGitHub, ctx: Context) -> Answer:
    repo = fake._issues_repo(ctx)
    issue = _issue(repo, ctx.params["number"])
    body = ctx.body
    names = _label_names(body.get("labels", []) if isinstance(body, dict) else body)
    for name in names:
        label = repo._label(name)
        if label not in issue.labels:
            issue.labels.append(label)
    issue.updated_at = _now()
    return fake._ok([fake.payloads.label(repo, label) for label in issue.labels])


@route("DELETE", _REPO + r"/issues/(?P<number>\d+)/labels/(?P<name>[^/]+)", ISSUES_WRITE)
def _remove_issue_label(fake: FakeGitHub, ctx: Context) -> Answer:
    repo = fake._issues_repo(ctx)
    issue = _issue(repo, ctx.params["number"])
    name = ctx.params["name"].lower()
    remaining = [label for label in issue.labels if label.name.lower() != name]
    if len(remaining) == len(issue.labels):
        raise HTTPError(
            404, "Label does not exist", doc=f"{DOCS}/issues/labels#remove-a-label-from-an-issue"
        )
    issue.labels = remaining
    issue.updated_at = _now()
    return fake._ok([fake.payloads.label(repo, label) for label in issue.labels])


# -- search


@route("GET", r"/search/issues", ISSUES_READ, resource="search")
def _search_issues(fake: FakeGitHub, ctx: Context) -> Answer:
    q = ctx.query.get("q", "")
    if not q.strip():
        raise HTTPError(
            422,
            "Validation Failed",
            doc=f"{DOCS}/search/search#search-issues-and-pull-requests",
            errors=[{"resource": "Search", "field": "q", "code": "missing"}],
        )
    query = parse_issue_query(q)
    cutoff = time.time() - fake.search_lag
    candidates = [
        issue
        for repo in fake.repos.values()
        if (not query.repos or repo.full_name.lower() in query.repos) and repo.has_issues
        for issue in repo.issues
    ]
    results = []
    for issue in candidates:
        if issue.created_at.timestamp() > cutoff and fake.search_lag:
            continue
        if query.kind == "issue" and issue.is_pull_request:
            continue
        if query.kind == "pr" and not issue.is_pull_request:
            continue
        if query.state and issue.state != query.state:
            continue
        names = {n.lower() for n in issue.label_names}
        if any(label.lower() not in names for label in query.labels):
            continue
        if query.authors and issue.user.login.lower() not in query.authors:
            continue
        scopes = query.scopes or {"title", "body"}
        texts = []
        if "title" in scopes:
            texts.append(issue.title)
        if "body" in scopes:
            texts.append(issue.body or "")
        if "comments" in scopes:
            texts.extend(c.body for c in issue.comments)
        haystack = "\n".join(texts).lower()
        if any(term.lower() not in haystack for term in query.terms):
            continue
        results.append(issue)
    sort = ctx.query.get("sort")
    keys: dict[str, Callable[[Issue], Any]] = {
        "created": lambda i: (i.created_at, i.id),
        "updated": lambda i: (i.updated_at, i.id),
        "comments": lambda i: (len(i.comments), i.id),
    }
    results.sort(
        key=keys.get(sort or "created", keys["created"]),
        reverse=ctx.query.get("order", "desc") != "asc",
    )
    reachable = results[:1000]
    page, link = fake._page(ctx, reachable)
    return fake._ok(
        {
            "total_count": len(results),
            "incomplete_results": False,
            "search_type": "lexical",
            "items": [fake.payloads.issue(i, search=True) for i in page],
        },
        headers=link,
    )


# Check runs, jobs and job logs register their routes on import.
from . import checks as _checks  # noqa: E402, F401
from . import dispatch as _builds  # noqa: E402, F401
from . import pulls as _pulls  # noqa: E402, F401
