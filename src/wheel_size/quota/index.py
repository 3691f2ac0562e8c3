"""One request to a package index's JSON API (``GET <index>/pypi/<project>/json``), bounded
in time; a timeout or an HTTP error is one line naming the index."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from urllib.parse import quote

from wheel_size.errors import WheelSizeError
from wheel_size.quota.model import ProjectFiles, project_files

__all__ = ["IndexUnavailable", "fetch_project_files"]

MAX_ANSWER_BYTES = 64 << 20


class IndexUnavailable(WheelSizeError):
    """The index did not answer, or not with the project's files."""


def fetch_project_files(index_url: str, project: str, timeout: float) -> ProjectFiles:
    url = f"{index_url.rstrip('/')}/pypi/{quote(project, safe='')}/json"
    request = urllib.request.Request(url, headers={"Accept": "application/json"})
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
        data = json.loads(body)
    except ValueError:
        raise IndexUnavailable(f"{url}: the answer is not JSON") from None
    try:
        return project_files(data, url)
    except WheelSizeError as exc:
        raise IndexUnavailable(str(exc)) from None
