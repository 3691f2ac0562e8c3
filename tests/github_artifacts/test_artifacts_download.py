"""Artifact downloads through PyGithub against the fake GitHub: 302 to storage, 410, limits."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path
from typing import Any

import pytest

from fakegithub import FakeGitHub
from wheel_size.errors import GitHubError
from wheel_size.github import RetryPolicy, connect
from wheel_size.github.artifacts import (
    ArtifactTooLarge,
    ArtifactUnavailable,
    RunArtifact,
    download_artifact,
    list_run_artifacts,
)

FAST = RetryPolicy(total=0, backoff=0.0, between_writes=0.0, timeout=10)


def _zip(size: int) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as archive:
        archive.writestr("w.whl", bytes(range(256)) * (size // 256))
    return buffer.getvalue()


@pytest.fixture
def run(fake_github: FakeGitHub) -> Any:
    workflow = fake_github.add_repo("o/r").add_workflow(7, "nightly")
    return workflow.add_run(created_at="2026-01-02T00:00:00Z")


def test_download_streams_to_disk_with_progress(
    fake_github: FakeGitHub, run: Any, tmp_path: Path
) -> None:
    content = _zip(3 << 20)
    run.add_artifact("wheels", content=content)
    gh = connect(fake_github.token, fake_github.url, retry=FAST)
    (artifact,) = list_run_artifacts(gh, "o/r", run.id)
    assert artifact.digest and artifact.digest.startswith("sha256:")
    log = io.StringIO()
    dest = download_artifact(gh, artifact, tmp_path / "a.zip", progress_stream=log)
    assert dest.read_bytes() == content
    assert "downloading wheels:" in log.getvalue() and "done in" in log.getvalue()
    assert list(tmp_path.iterdir()) == [dest]


def test_expired_artifacts_are_unavailable(
    fake_github: FakeGitHub, run: Any, tmp_path: Path
) -> None:
    run.add_artifact("old", size_in_bytes=10, expired=True)
    gh = connect(fake_github.token, fake_github.url, retry=FAST)
    (artifact,) = list_run_artifacts(gh, "o/r", run.id)
    with pytest.raises(ArtifactUnavailable, match="expired"):
        download_artifact(gh, artifact, tmp_path / "x.zip")
    # listed before it expired: the download endpoint's 410 says the same
    stale = RunArtifact(**{**artifact.__dict__, "expired": False})
    with pytest.raises(ArtifactUnavailable, match="410"):
        download_artifact(gh, stale, tmp_path / "x.zip")
    assert not list(tmp_path.iterdir())


def test_size_limit_before_and_during_download(
    fake_github: FakeGitHub, run: Any, tmp_path: Path
) -> None:
    content = _zip(2 << 20)
    run.add_artifact("big", content=content)
    run.add_artifact("lies", content=content, size_in_bytes=1000)
    gh = connect(fake_github.token, fake_github.url, retry=FAST)
    found = {a.name: a for a in list_run_artifacts(gh, "o/r", run.id)}
    with pytest.raises(ArtifactTooLarge, match="over the download limit"):
        download_artifact(gh, found["big"], tmp_path / "b.zip", max_bytes=1 << 20)
    with pytest.raises(ArtifactTooLarge):
        download_artifact(gh, found["lies"], tmp_path / "l.zip", max_bytes=1 << 20)
    assert not list(tmp_path.iterdir())  # nothing partial left behind


def test_digest_mismatch_is_an_error(fake_github: FakeGitHub, run: Any, tmp_path: Path) -> None:
    run.add_artifact("w", content=_zip(4096), digest="sha256:" + "0" * 64)
    gh = connect(fake_github.token, fake_github.url, retry=FAST)
    (artifact,) = list_run_artifacts(gh, "o/r", run.id)
    with pytest.raises(GitHubError, match="digest"):
        download_artifact(gh, artifact, tmp_path / "w.zip")
    assert not list(tmp_path.iterdir())


def test_storage_on_another_host_gets_no_token(
    fake_github: FakeGitHub, run: Any, tmp_path: Path
) -> None:
    content = _zip(8192)
    run.add_artifact("w", content=content)
    (listed,) = list_run_artifacts(
        connect(fake_github.token, fake_github.url, retry=FAST), "o/r", run.id
    )
    # Talk to the API as "localhost": the fake's 302 points at 127.0.0.1, another host.
    gh = connect(fake_github.token, fake_github.url.replace("127.0.0.1", "localhost"), retry=FAST)
    url = listed.archive_download_url.replace("127.0.0.1", "localhost")
    artifact = RunArtifact(**{**listed.__dict__, "archive_download_url": url})
    # PyGithub's own getFile refuses to follow a redirect off the API's domain ...
    with pytest.raises(AssertionError):
        gh.requester.getFile(artifact.archive_download_url, str(tmp_path / "pygithub.zip"))
    # ... so the signed URL is fetched without PyGithub, and without the token.
    dest = download_artifact(gh, artifact, tmp_path / "w.zip")
    assert dest.read_bytes() == content
    blob_requests = [r for r in fake_github.requests if r.path.startswith("/_blobs/")]
    assert blob_requests and all("authorization" not in r.headers for r in blob_requests)
    api_requests = [r for r in fake_github.requests if r.path.endswith(f"/{artifact.id}/zip")]
    assert api_requests and all("authorization" in r.headers for r in api_requests)
