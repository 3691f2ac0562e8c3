"""Issue 32: a TLS certificate the runner does not trust (GHES with a private CA not set
up yet) was retried like a network error (the step failed after 510 s). It is now one try
and one line naming the CA setup. A real TLS server with a self-signed certificate made by
openssl (skipped with a reason when openssl is missing)."""

from __future__ import annotations

import shutil
import socket
import ssl
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from wheel_size.errors import GitHubError
from wheel_size.github.client import RetryPolicy, connect, github_errors


@pytest.fixture
def untrusted_server(tmp_path: Path) -> Iterator[tuple[str, list[int]]]:
    if shutil.which("openssl") is None:
        pytest.skip("openssl is not installed (it makes the self-signed certificate)")
    key, cert = tmp_path / "key.pem", tmp_path / "cert.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
         "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
         "-keyout", str(key), "-out", str(cert)],
        check=True, capture_output=True,
    )  # fmt: skip
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(0.2)
    accepted: list[int] = []
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except OSError:
                continue
            accepted.append(1)
            try:
                with context.wrap_socket(conn, server_side=True):
                    pass
            except (OSError, ssl.SSLError):
                conn.close()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield f"https://127.0.0.1:{listener.getsockname()[1]}/api/v3", accepted
    stop.set()
    thread.join()
    listener.close()


def test_an_untrusted_certificate_fails_at_once_naming_the_ca_setup(
    untrusted_server: tuple[str, list[int]],
) -> None:
    url, accepted = untrusted_server
    policy = RetryPolicy(total=5, backoff=1.0, max_wait=5.0, secondary_wait=0.1)
    gh = connect("t0ken", url, retry=policy)
    with pytest.raises(GitHubError) as info, github_errors("reading repository o/r"):
        gh.get_repo("o/r")
    assert len(accepted) == 1  # one try, no backoff (1 + 2 + 4 + 8 + 16 s before)
    message = str(info.value)
    assert "\n" not in message and "TLS certificate is not trusted" in message
    assert "REQUESTS_CA_BUNDLE" in message and "private certificate authority" in message
