"""What ``pip install`` would fetch: ``pip install --dry-run --report`` for a platform.

pip resolves against the index (``--index-url``, isolated from any pip configuration of the
machine) for the platform's wheel tags (``--platform``, ``--python-version``,
``--implementation``, binaries only); its report names every distribution, version and
file URL. As pip does, environment markers (``; platform_system == "Linux"``) are evaluated
for the machine that runs the command, not for ``--platform``. A requirement that does not
resolve for the platform is one line: the last ``ERROR:`` line pip printed.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from wheel_size.errors import InputError, WheelSizeError

__all__ = ["ResolveOptions", "Resolved", "ResolvedFile", "resolve"]


class NotResolved(WheelSizeError):
    """pip could not resolve the set for the platform (or did not run)."""


@dataclass(frozen=True)
class ResolveOptions:
    index_url: str = "https://pypi.org/simple"
    platforms: tuple[str, ...] = ()  # none: the machine's own
    python_version: str | None = None  # "3.12"
    implementation: str | None = None  # "cp"
    timeout: float = 600.0  # the whole resolution
    network_timeout: float = 30.0  # each of pip's requests (pip --timeout, one retry)


@dataclass(frozen=True)
class ResolvedFile:
    name: str  # the distribution, normalised as pip reports it
    version: str
    url: str
    filename: str
    requested: bool  # one of the wheels given, not a dependency


@dataclass(frozen=True)
class Resolved:
    files: tuple[ResolvedFile, ...]
    platform: str  # as asked ("host" without --platform)


def _command(wheels: Sequence[Path], options: ResolveOptions, target: str) -> list[str]:
    cmd = [sys.executable, "-m", "pip", "install", "--dry-run", "--ignore-installed",
           "--isolated", "--disable-pip-version-check", "--no-cache-dir", "--quiet",
           "--report", "-", "--target", target, "--index-url", options.index_url,
           "--only-binary=:all:", "--timeout", f"{options.network_timeout:g}",
           "--retries", "1"]  # fmt: skip
    for platform in options.platforms:
        cmd += ["--platform", platform]
    if options.python_version:
        cmd += ["--python-version", options.python_version]
    if options.implementation:
        cmd += ["--implementation", options.implementation]
    return cmd + [str(w) for w in wheels]


def _error_line(stderr: str) -> str:
    errors = [
        ln.removeprefix("ERROR: ").strip() for ln in stderr.splitlines() if ln.startswith("ERROR:")
    ]
    return errors[-1] if errors else (stderr.strip().splitlines() or ["pip failed"])[-1]


def resolve(wheels: Sequence[Path], options: ResolveOptions) -> Resolved:
    """Every file pip would install for ``wheels`` on the platform; raises
    :class:`NotResolved` (one line) when it cannot."""
    for wheel in wheels:
        if not wheel.is_file():
            raise InputError(f"{wheel}: no such wheel")
    platform = ",".join(options.platforms) or "host"
    with tempfile.TemporaryDirectory(prefix="wheel-size-deps-") as target:
        try:
            done = subprocess.run(
                _command(wheels, options, target),
                capture_output=True,
                text=True,
                timeout=options.timeout,
                check=False,
            )
        except subprocess.TimeoutExpired:
            raise NotResolved(f"pip did not resolve within {options.timeout:g} s") from None
    if done.returncode != 0:
        raise NotResolved(f"not resolvable for {platform}: {_error_line(done.stderr)}")
    try:
        report = json.loads(done.stdout)
        files = tuple(_file(item) for item in report["install"])
    except (ValueError, KeyError, TypeError) as exc:
        raise NotResolved(f"pip's report could not be read ({type(exc).__name__})") from None
    return Resolved(tuple(sorted(files, key=lambda f: (not f.requested, f.name))), platform)


def _file(item: dict[str, object]) -> ResolvedFile:
    metadata = item["metadata"]
    download = item["download_info"]
    assert isinstance(metadata, dict) and isinstance(download, dict)
    url = str(download["url"])
    return ResolvedFile(
        name=str(metadata["name"]),
        version=str(metadata["version"]),
        url=url,
        filename=url.rsplit("/", 1)[-1].split("#", 1)[0],
        requested=bool(item.get("requested")),
    )
