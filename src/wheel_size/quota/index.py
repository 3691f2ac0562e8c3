"""The project's files on a package index: its JSON API (``GET <index>/pypi/<project>/json``,
``releases``), or — where that answer has no ``releases`` (PyPI calls the key deprecated) —
the simple API as JSON (PEP 691, with each file's ``size`` from PEP 700). Each request is
bounded in time; a timeout or an HTTP error is one line naming the index."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from urllib.parse import quote

from wheel_size.errors import WheelSizeError
from wheel_size.quota.model import ProjectFiles, project_files, simple_files

__all__ = ["IndexUnavailable", "fetch_project_files"]

MAX_ANSWER_BYTES = 64 << 20
SIMPLE_JSON = "application/vnd.pypi.simple.v1+json"


class IndexUnavailable(WheelSizeError):
    """The index did not answer, or not with the project's files."""


def _get(url: str, accept: str, timeout: float) -> object:
    request = urllib.request.Request(url, headers={"Accept": accept})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as answer:
            body = answer.read(MAX_ANSWER_BYTES + 1)
    except urllib.error.HTTPError as exc:
        what = "no such project" if exc.code == 404 else f"HTTP {exc.code}"
        raise IndexUnavailable(f"{url}: {what}") from None
    except TimeoutError:
        raise IndexUnavailable(f"{url}: no answer within {timeout:g} s") from None
    except (urllib.error.URLError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        if isinstance(reason, TimeoutError):
            raise IndexUnavailable(f"{url}: no answer within {timeout:g} s") from None
        raise IndexUnavailable(f"{url}: {reason}") from None
    if len(body) > MAX_ANSWER_BYTES:
        raise IndexUnavailable(f"{url}: answer larger than {MAX_ANSWER_BYTES:,} bytes")
    try:
        return json.loads(body)
    except ValueError:
        raise IndexUnavailable(f"{url}: the answer is not JSON") from None


def fetch_project_files(index_url: str, project: str, timeout: float) -> ProjectFiles:
    base = index_url.rstrip("/")
    name = quote(project, safe="")
    url = f"{base}/pypi/{name}/json"
    data = _get(url, "application/json", timeout)
    if not (isinstance(data, dict) and "releases" in data):
        simple = f"{base}/simple/{name}/"
        try:
            return simple_files(_get(simple, SIMPLE_JSON, timeout), simple)
        except WheelSizeError as exc:
            raise IndexUnavailable(str(exc)) from None
    try:
        return project_files(data, url)
    except WheelSizeError as exc:
        raise IndexUnavailable(str(exc)) from None
