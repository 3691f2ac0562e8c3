"""HTTPS to GitHub Enterprise Server with a private certificate authority: the system trust
store is used (truststore), ``REQUESTS_CA_BUNDLE`` still works, and a bundle path that does
not exist is one line naming it.

The fake GitHub speaks TLS here with a certificate from a CA made for the test. OpenSSL's
``SSL_CERT_FILE`` stands for the system store (it is where OpenSSL, and so truststore on
Linux, looks for the machine's CAs); requests' own certifi bundle never has this CA.
"""

from __future__ import annotations

import os
import ssl
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from conftest import SRC
from fakegithub import FakeGitHub

SCRIPT = """
from wheel_size.errors import WheelSizeError
from wheel_size.github.client import connect, github_errors
from wheel_size.trust import use_system_trust_store
try:
    use_system_trust_store()  # as the console script and the action's main do at start
    with github_errors("reading the repository"):
        print(connect().get_repo("pytorch/pytorch").full_name)
except WheelSizeError as exc:
    print(f"error {exc.exit_code}: {exc}")
"""


def _openssl(*args: str, cwd: Path) -> None:
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True)


@pytest.fixture(scope="module")
def certificates(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A private CA and a certificate for 127.0.0.1 signed by it."""
    if subprocess.run(["openssl", "version"], capture_output=True, check=False).returncode:
        pytest.skip("openssl not installed")
    where = tmp_path_factory.mktemp("ca")
    _openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out",
             "ca.pem", "-days", "2", "-subj", "/CN=Test Enterprise CA", cwd=where)  # fmt: skip
    _openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", "server.key", "-out",
             "server.csr", "-subj", "/CN=127.0.0.1", cwd=where)  # fmt: skip
    (where / "san.cnf").write_text("subjectAltName=IP:127.0.0.1\n")
    _openssl("x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key",
             "-CAcreateserial", "-out", "server.pem", "-days", "2", "-extfile", "san.cnf",
             cwd=where)  # fmt: skip
    return where


def _server_context_class() -> type[ssl.SSLContext]:
    """The standard library's SSLContext, even after an in-process ``connect()`` put
    truststore's (a client-side context) in its place."""
    try:
        from truststore._api import _original_SSLContext  # type: ignore[attr-defined]
    except ImportError:
        return ssl.SSLContext
    return _original_SSLContext


@pytest.fixture
def enterprise(certificates: Path) -> Iterator[tuple[FakeGitHub, str]]:
    """The fake GitHub behind TLS: (the fake, its https API URL)."""
    with FakeGitHub() as fake:
        fake.add_repo("pytorch/pytorch")
        context = _server_context_class()(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(certificates / "server.pem", certificates / "server.key")
        server = fake._server
        assert server is not None
        server.socket = context.wrap_socket(server.socket, server_side=True)
        yield fake, f"https://127.0.0.1:{fake.port}"


def _connect(fake: FakeGitHub, url: str, **extra: str) -> str:
    env = {
        "PATH": os.environ["PATH"],
        "PYTHONPATH": str(SRC),
        "HOME": os.environ.get("HOME", "/root"),
        "GITHUB_API_URL": url,
        "GITHUB_TOKEN": fake.token,
        "WHEEL_SIZE_GITHUB_RETRY": "total=0",
        **extra,
    }
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True, timeout=120,
        check=False,
    )  # fmt: skip
    assert "Traceback" not in done.stderr, done.stderr
    return done.stdout.strip()


def test_the_system_trust_store_is_used(
    enterprise: tuple[FakeGitHub, str], certificates: Path
) -> None:
    fake, url = enterprise
    assert _connect(fake, url, SSL_CERT_FILE=str(certificates / "ca.pem")) == "pytorch/pytorch"


def test_requests_ca_bundle_is_still_honoured(
    enterprise: tuple[FakeGitHub, str], certificates: Path
) -> None:
    fake, url = enterprise
    found = _connect(fake, url, REQUESTS_CA_BUNDLE=str(certificates / "ca.pem"))
    assert found == "pytorch/pytorch"


def test_an_unknown_ca_is_refused_in_one_line(enterprise: tuple[FakeGitHub, str]) -> None:
    fake, url = enterprise
    said = _connect(fake, url)
    assert said.startswith(
        "error 2: reading the repository: GitHub's TLS certificate is not trusted at 127.0.0.1"
    )
    assert "REQUESTS_CA_BUNDLE" in said  # the CA setup is named (issue 32)
    assert "CERTIFICATE_VERIFY_FAILED" in said or "certificate" in said.lower()


@pytest.mark.parametrize("variable", ["REQUESTS_CA_BUNDLE", "SSL_CERT_FILE"])
def test_a_missing_ca_bundle_is_named(
    enterprise: tuple[FakeGitHub, str], tmp_path: Path, variable: str
) -> None:
    fake, url = enterprise
    missing = tmp_path / "corp-ca.pem"
    said = _connect(fake, url, **{variable: str(missing)})
    assert said == (
        f"error 2: {variable}={missing}: no such CA bundle file; point it at the PEM file of "
        "your certificate authority (inside the workspace for the container action) or unset it"
    )
    assert fake.requests == []  # nothing was sent
