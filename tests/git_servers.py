"""Real git remotes on 127.0.0.1 for the data-branch tests: a smart-HTTP server (git's own
``git http-backend`` behind Basic auth) and a server that accepts and never answers."""

from __future__ import annotations

import base64
import http.server
import os
import socket
import subprocess
import threading
import urllib.parse
from pathlib import Path
from types import TracebackType


class StalledServer:
    """Accepts TCP connections and never sends a byte: a remote that hangs (HTTP or git://)."""

    def __init__(self) -> None:
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._sock.bind(("127.0.0.1", 0))
        self._sock.listen(16)
        self._sock.settimeout(0.1)
        self.port: int = self._sock.getsockname()[1]
        self.connections: list[socket.socket] = []
        self.accepted = threading.Event()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self._sock.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            self.connections.append(conn)
            self.accepted.set()

    def peers_closed(self, wait: float = 30.0) -> bool:
        """True once every accepted connection was closed by the client (its process died)."""
        for conn in self.connections:
            conn.settimeout(wait)
            try:
                while conn.recv(65536):
                    pass
            except TimeoutError:
                return False
            except OSError:
                pass  # reset by the peer: closed too
        return True

    def __enter__(self) -> StalledServer:
        self._thread.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._stop.set()
        self._thread.join()
        self._sock.close()
        for conn in self.connections:
            conn.close()


class GitHttpServer:
    """``git http-backend`` over HTTP with Basic auth: only ``user:password`` gets in.

    Repositories live under ``root`` (bare, ``http.receivepack`` on). Every request's
    ``Authorization`` header is recorded; ``stall_push`` makes receive-pack hang (a remote
    that takes the push and never answers).
    """

    def __init__(self, root: Path, user: str, password: str) -> None:
        self.root = root
        self.expected = "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()
        self.seen_auth: list[str | None] = []
        self.stall_push = False
        self._release = threading.Event()
        server = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: object) -> None:
                pass

            def do_GET(self) -> None:
                server._handle(self)

            def do_POST(self) -> None:
                server._handle(self)

        self._httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self.port = self._httpd.server_address[1]
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    def authorized(self, header: str | None) -> bool:
        """The scheme name is case-insensitive (git sends ``basic``); the credentials not."""
        if header is None:
            return False
        scheme, _, creds = header.strip().partition(" ")
        return scheme.lower() == "basic" and creds.strip() == self.expected.split(" ")[1]

    def bare(self, name: str) -> Path:
        """A new empty bare repository at ``/<name>`` that accepts pushes over HTTP."""
        path = self.root / name
        subprocess.run(["git", "init", "-q", "--bare", str(path)], check=True)
        subprocess.run(
            ["git", "--git-dir", str(path), "config", "http.receivepack", "true"], check=True
        )
        return path

    def url(self, name: str) -> str:
        return f"http://127.0.0.1:{self.port}/{name}"

    def _handle(self, req: http.server.BaseHTTPRequestHandler) -> None:
        auth = req.headers.get("Authorization")
        self.seen_auth.append(auth)
        if not self.authorized(auth):
            req.send_response(401)
            req.send_header("WWW-Authenticate", 'Basic realm="data"')
            req.send_header("Content-Length", "0")
            req.end_headers()
            return
        parts = urllib.parse.urlsplit(req.path)
        if self.stall_push and "receive-pack" in parts.path + parts.query:
            self._release.wait()
            return
        body = _read_body(req)
        env = {
            "PATH": os.environ.get("PATH", ""),
            "GIT_PROJECT_ROOT": str(self.root),
            "GIT_HTTP_EXPORT_ALL": "1",
            "REMOTE_USER": "writer",
            "REMOTE_ADDR": "127.0.0.1",
            "REQUEST_METHOD": req.command,
            "PATH_INFO": urllib.parse.unquote(parts.path),
            "QUERY_STRING": parts.query,
            "CONTENT_TYPE": req.headers.get("Content-Type", ""),
            "CONTENT_LENGTH": str(len(body)),
            "HTTP_CONTENT_ENCODING": req.headers.get("Content-Encoding", ""),
            "GIT_PROTOCOL": req.headers.get("Git-Protocol", ""),
        }
        cgi = subprocess.run(
            ["git", "http-backend"], input=body, env=env, capture_output=True, check=False
        )
        head, _, payload = cgi.stdout.partition(b"\r\n\r\n")
        if not _:
            head, _, payload = cgi.stdout.partition(b"\n\n")
        status = 200
        headers: list[tuple[str, str]] = []
        for line in head.decode("latin-1").splitlines():
            name, _, value = line.partition(":")
            if name.lower() == "status":
                status = int(value.split()[0])
            elif name:
                headers.append((name, value.strip()))
        req.send_response(status)
        for name, value in headers:
            req.send_header(name, value)
        req.send_header("Content-Length", str(len(payload)))
        req.end_headers()
        req.wfile.write(payload)

    def __enter__(self) -> GitHttpServer:
        self._thread.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._release.set()
        self._httpd.shutdown()
        self._httpd.server_close()


def _read_body(req: http.server.BaseHTTPRequestHandler) -> bytes:
    if req.headers.get("Transfer-Encoding", "").lower() == "chunked":
        chunks: list[bytes] = []
        while True:
            size = int(req.rfile.readline().split(b";")[0].strip() or b"0", 16)
            if size == 0:
                req.rfile.readline()
                return b"".join(chunks)
            chunks.append(req.rfile.read(size))
            req.rfile.readline()
    return req.rfile.read(int(req.headers.get("Content-Length") or 0))
