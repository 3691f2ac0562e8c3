"""Download workflow-run artifacts to disk, streamed, with a size limit and a progress line.

The download endpoint answers 302 with a short-lived, pre-signed URL on a storage host, or
410 once the artifact has expired. The API request goes through PyGithub (auth, retries,
one-line errors); the signed URL is fetched with ``requests`` and *no* Authorization header.
We do not use ``Requester.getFile`` for the second hop: PyGithub refuses (AssertionError)
redirects to hosts outside the API's own domain, which is where GitHub's artifact storage
lives; for a host it accepts, it drops the Authorization header itself.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import TextIO

import requests
from github import Github
from github.Artifact import Artifact

from wheel_size.errors import GitHubError
from wheel_size.github.client import github_errors, scrub
from wheel_size.ports import ArtifactTooLarge, ArtifactUnavailable, RunArtifact
from wheel_size.progress import Progress

__all__ = [
    "ArtifactTooLarge",
    "ArtifactUnavailable",
    "RunArtifact",
    "download_artifact",
    "list_run_artifacts",
    "run_artifact",
]

_CHUNK = 1 << 20


def run_artifact(artifact: Artifact, run_id: int | None = None) -> RunArtifact:
    """The fields of a PyGithub artifact we use (an Artifact never fetches itself again)."""
    raw = artifact.raw_data
    return RunArtifact(
        id=artifact.id,
        name=artifact.name,
        size_in_bytes=artifact.size_in_bytes,
        expired=bool(artifact.expired),
        archive_download_url=artifact.archive_download_url,
        digest=raw.get("digest"),
        run_id=run_id,
    )


def list_run_artifacts(gh: Github, repo: str, run_id: int) -> list[RunArtifact]:
    """Every artifact of one workflow run (expired ones included, flagged)."""
    with github_errors(f"listing the artifacts of run {run_id} in {repo}"):
        run = gh.get_repo(repo).get_workflow_run(run_id)
        return [run_artifact(a, run_id) for a in run.get_artifacts()]


def _signed_url(gh: Github, artifact: RunArtifact, what: str) -> str:
    with github_errors(f"downloading {what}"):
        status, headers, body = gh.requester.requestJson("GET", artifact.archive_download_url)
    if status == 410:
        raise ArtifactUnavailable(f"{what} has expired (GitHub answered 410): evidence unavailable")
    if status == 404:
        raise ArtifactUnavailable(f"{what} is gone (GitHub answered 404): evidence unavailable")
    location = headers.get("location")
    if status not in (301, 302, 303, 307) or not location:
        raise GitHubError(
            f"downloading {what}: GitHub answered {status}, expected a redirect: "
            + scrub(body[:200])
        )
    return str(location)


def _chunks(
    url: str, what: str, timeout: float
) -> tuple[int | None, Iterable[bytes], requests.Response]:
    try:
        response = requests.get(url, stream=True, timeout=timeout, allow_redirects=True)
    except requests.RequestException as exc:
        raise GitHubError(f"downloading {what}: {scrub(str(exc))}") from None
    if response.status_code != 200:
        response.close()
        raise GitHubError(f"downloading {what}: the storage host answered {response.status_code}")
    length = response.headers.get("Content-Length")
    size = int(length) if length and length.isdigit() else None
    return size, response.iter_content(_CHUNK), response


def download_artifact(
    gh: Github,
    artifact: RunArtifact,
    dest: Path,
    *,
    max_bytes: int | None = None,
    progress_stream: TextIO | None = None,
    timeout: float = 60.0,
) -> Path:
    """Stream ``artifact``'s zip to ``dest`` (written aside, moved into place at the end).

    Raises :class:`ArtifactUnavailable` if it expired, :class:`ArtifactTooLarge` if it is
    (or turns out to be) larger than ``max_bytes``, :class:`GitHubError` otherwise.
    """
    what = f"artifact {artifact.name!r} ({artifact.id})" + (
        f" of run {artifact.run_id}" if artifact.run_id else ""
    )
    if artifact.expired:
        raise ArtifactUnavailable(f"{what} has expired: evidence unavailable")
    if max_bytes is not None and artifact.size_in_bytes > max_bytes:
        raise ArtifactTooLarge(
            f"{what} is {artifact.size_in_bytes:,} bytes, over the download limit of {max_bytes:,}"
        )
    url = _signed_url(gh, artifact, what)
    size, chunks, response = _chunks(url, what, timeout)
    if max_bytes is not None and size is not None and size > max_bytes:
        response.close()
        raise ArtifactTooLarge(
            f"{what} is {size:,} bytes, over the download limit of {max_bytes:,}"
        )
    dest.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{dest.name}.", suffix=".part", dir=dest.parent)
    tmp = Path(tmp_name)
    digest = hashlib.sha256()
    try:
        with (
            response,
            os.fdopen(fd, "wb") as out,
            Progress(f"downloading {artifact.name}", size or artifact.size_in_bytes, unit="bytes",
                     stream=progress_stream) as progress,
        ):  # fmt: skip
            written = 0
            for chunk in chunks:
                written += len(chunk)
                if max_bytes is not None and written > max_bytes:
                    raise ArtifactTooLarge(
                        f"{what} exceeds the download limit of {max_bytes:,} bytes"
                    )
                digest.update(chunk)
                out.write(chunk)
                progress.advance(len(chunk))
        expected = artifact.digest or ""
        if expected.startswith("sha256:") and digest.hexdigest() != expected[len("sha256:") :]:
            raise GitHubError(f"downloading {what}: the zip does not match its sha256 digest")
        tmp.replace(dest)
    except requests.RequestException as exc:
        tmp.unlink(missing_ok=True)
        raise GitHubError(f"downloading {what}: {scrub(str(exc))}") from None
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return dest
