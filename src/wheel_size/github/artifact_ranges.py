"""Ranged reads of an artifact's zip: the installed size needs its directories, not its bytes.

The download endpoint redirects to a pre-signed storage URL (see
:mod:`wheel_size.github.artifacts`); that URL is asked once and each read is one
``Range: bytes=a-b`` request to it, answered 206 with a ``Content-Range`` whose total must be
the listed size. A host that ignores the header (200 with the whole blob) is an error, not a
silent full download.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import requests
from github import Github

from wheel_size.errors import GitHubError
from wheel_size.github.artifacts import _signed_url
from wheel_size.github.client import scrub
from wheel_size.ports import RunArtifact

__all__ = ["ArtifactRangeReader"]

_CONTENT_RANGE = re.compile(r"bytes (\d+)-(\d+)/(\d+)")


class ArtifactRangeReader:
    """A :class:`~wheel_size.installed.RangeSource` over one artifact's zip."""

    def __init__(self, gh: Github, artifact: RunArtifact, *, timeout: float = 60.0):
        self.name = f"artifact {artifact.name!r} ({artifact.id})"
        self.size = artifact.size_in_bytes
        self._gh = gh
        self._artifact = artifact
        self._timeout = timeout
        self._url: str | None = None
        self.reads = 0

    def _get(self, offset: int, last: int, *, stream: bool) -> requests.Response:
        """One ranged GET; a signed URL that expired (403) is asked for again, once."""
        for attempt in (0, 1):
            if self._url is None or attempt:
                self._url = _signed_url(self._gh, self._artifact, self.name)
            self.reads += 1
            try:
                response = requests.get(
                    self._url,
                    headers={"Range": f"bytes={offset}-{last}"},
                    timeout=self._timeout,
                    stream=stream,
                )
            except requests.RequestException as exc:
                raise GitHubError(f"reading {self.name}: {scrub(str(exc))}") from None
            if response.status_code != 403 or attempt:
                return response
            response.close()
        raise AssertionError("unreachable")

    def stream(self, offset: int, length: int, chunk: int) -> Iterator[bytes]:
        """``length`` bytes from ``offset`` in one request, ``chunk`` bytes at a time (a
        deflated wheel is read through once, not in as many requests as chunks)."""
        if length <= 0:
            return
        last = offset + length - 1
        response = self._get(offset, last, stream=True)
        with response:
            self._check(response, offset, last, length)
            got = 0
            try:
                for part in response.iter_content(chunk):
                    got += len(part)
                    yield part
            except requests.RequestException as exc:
                raise GitHubError(f"reading {self.name}: {scrub(str(exc))}") from None
            if got != length:
                raise GitHubError(f"reading {self.name}: the answer ended after {got:,} bytes")

    def read(self, offset: int, length: int) -> bytes:
        if length <= 0:
            return b""
        last = offset + length - 1
        response = self._get(offset, last, stream=False)
        self._check(response, offset, last, length)
        if len(response.content) != length:
            raise GitHubError(f"reading {self.name}: short answer at {offset}")
        return response.content

    def _check(self, response: requests.Response, offset: int, last: int, length: int) -> None:
        if response.status_code != 206:
            raise GitHubError(
                f"reading {length} bytes at {offset} of {self.name}: the storage host answered "
                f"{response.status_code}, not 206 (a ranged read)"
            )
        m = _CONTENT_RANGE.fullmatch(response.headers.get("Content-Range", ""))
        if m is None or (int(m.group(1)), int(m.group(2))) != (offset, last):
            raise GitHubError(f"reading {self.name}: the storage host sent another range")
        if int(m.group(3)) != self.size:
            raise GitHubError(
                f"reading {self.name}: the zip is {int(m.group(3)):,} bytes, "
                f"but the listing says {self.size:,}"
            )
