"""A package index on 127.0.0.1 for the quota and dependency tests: PyPI's JSON API
(``/pypi/<project>/json``, every release and its files with their sizes) and a PEP 503
simple index (``/simple/<project>/``) over a folder of real files, optionally slow."""

from __future__ import annotations

import contextlib
import html
import json
import re
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _project_and_version(filename: str) -> tuple[str, str]:
    stem = filename[: -len(".whl")] if filename.endswith(".whl") else filename.rsplit(".tar", 1)[0]
    parts = stem.split("-")
    return _normal(parts[0]), parts[1]


class FixtureIndex:
    """Serves every file under ``root``; ``delay`` seconds before each JSON answer."""

    def __init__(self, root: Path, delay: float = 0.0, *, releases: bool = True):
        self.root = root
        self.delay = delay
        self.releases = releases  # False: a JSON API without the deprecated 'releases' key
        self.requests: list[str] = []

    def files(self, project: str) -> list[Path]:
        return sorted(
            p for p in self.root.iterdir() if _project_and_version(p.name)[0] == _normal(project)
        )

    def json_of(self, project: str) -> dict[str, object]:
        releases: dict[str, list[dict[str, object]]] = {}
        for path in self.files(project):
            version = _project_and_version(path.name)[1]
            releases.setdefault(version, []).append(
                {"filename": path.name, "size": path.stat().st_size, "url": f"/files/{path.name}"}
            )
        if not self.releases:
            return {"info": {"name": project}, "urls": []}
        return {"info": {"name": project}, "releases": releases, "urls": []}

    def simple_json_of(self, project: str) -> dict[str, object]:
        """The PEP 691 JSON simple page, with PEP 700 sizes."""
        files = [
            {"filename": p.name, "url": f"/files/{p.name}", "hashes": {}, "size": p.stat().st_size}
            for p in self.files(project)
        ]
        versions = sorted({_project_and_version(p.name)[1] for p in self.files(project)})
        return {"meta": {"api-version": "1.1"}, "name": project, "files": files,
                "versions": versions}  # fmt: skip

    @contextlib.contextmanager
    def serving(self) -> Iterator[str]:
        index = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_GET(self) -> None:
                index.requests.append(self.path)
                m = re.fullmatch(r"/pypi/([^/]+)/json", self.path)
                if m:
                    time.sleep(index.delay)
                    if not index.files(m.group(1)):
                        return self._send(404, b"not found", "text/plain")
                    body = json.dumps(index.json_of(m.group(1))).encode()
                    return self._send(200, body, "application/json")
                m = re.fullmatch(r"/simple/([^/]+)/?", self.path)
                if m and "vnd.pypi.simple.v1+json" in (self.headers.get("Accept") or ""):
                    if not index.files(m.group(1)):
                        return self._send(404, b"not found", "text/plain")
                    body = json.dumps(index.simple_json_of(m.group(1))).encode()
                    return self._send(200, body, "application/vnd.pypi.simple.v1+json")
                if m:
                    links = "".join(
                        f'<a href="/files/{html.escape(p.name)}">{html.escape(p.name)}</a>\n'
                        for p in index.files(m.group(1))
                    )
                    if not links:
                        return self._send(404, b"not found", "text/plain")
                    return self._send(
                        200, f"<html><body>{links}</body></html>".encode(), "text/html"
                    )
                m = re.fullmatch(r"/files/([^/]+)", self.path)
                if m and (index.root / m.group(1)).is_file():
                    return self._send(
                        200, (index.root / m.group(1)).read_bytes(), "application/octet-stream"
                    )
                return self._send(404, b"not found", "text/plain")

            def do_HEAD(self) -> None:
                index.requests.append("HEAD " + self.path)
                m = re.fullmatch(r"/files/([^/]+)", self.path)
                path = index.root / m.group(1) if m else None
                if path is None or not path.is_file():
                    self.send_response(404)
                    self.end_headers()
                    return
                self.send_response(200)
                self.send_header("Content-Length", str(path.stat().st_size))
                self.end_headers()

            def _send(self, status: int, body: bytes, kind: str) -> None:
                self.send_response(status)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                    self.wfile.write(body)

        server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        server.daemon_threads = True
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        try:
            yield f"http://127.0.0.1:{server.server_address[1]}"
        finally:
            server.shutdown()
            server.server_close()


def dep_wheel(
    folder: Path,
    name: str,
    version: str,
    *,
    tag: str = "py3-none-any",
    requires: tuple[str, ...] = (),
    payload: int = 1000,
    seed: int = 0,
) -> Path:
    """A small installable wheel with ``Requires-Dist`` lines and ``payload`` random bytes
    (written with ``zipfile``, not our writer)."""
    import base64
    import hashlib
    import random
    import zipfile

    folder.mkdir(parents=True, exist_ok=True)
    module = name.replace("-", "_")
    dist_info = f"{module}-{version}.dist-info"
    files = {
        f"{module}/__init__.py": b"",
        f"{module}/data.bin": random.Random(f"{name}{version}{seed}").randbytes(payload),
        f"{dist_info}/METADATA": (
            f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"
            + "".join(f"Requires-Dist: {r}\n" for r in requires)
        ).encode(),
        f"{dist_info}/WHEEL": (
            "Wheel-Version: 1.0\nGenerator: fixture\n"
            f"Root-Is-Purelib: {'true' if tag.endswith('none-any') else 'false'}\nTag: {tag}\n"
        ).encode(),
    }
    record = []
    for path, data in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        record.append(f"{path},sha256={digest},{len(data)}")
    record.append(f"{dist_info}/RECORD,,")
    files[f"{dist_info}/RECORD"] = ("\n".join(record) + "\n").encode()
    out = folder / f"{module}-{version}-{tag}.whl"
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as z:
        for path, data in files.items():
            z.writestr(path, data)
    return out
