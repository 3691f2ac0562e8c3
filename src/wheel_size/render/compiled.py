"""Templates compiled once, when the package is installed, instead of on every run.

jinja2 turns each template into Python source and compiles that on first use: for the split
report (``split_report.md.j2`` with its sections) about 0.1 CPU-s, every run, in a container
that starts fresh each time. The image's build stage (``Dockerfile``) runs
``python -m wheel_size.render.bytecode`` once after installing the package; it writes each
template's code object into ``_bytecode/`` beside this module, inside the installed package.

At run time the directory is only read, never written (a run leaves the package, the home
and the temporary directories alone), and a compiled template is used only where it is
still right: its key names the template, the jinja2 version and the environment options
that shape the code (:data:`CODE_OPTIONS`), and jinja2 itself checks the template source's
SHA-1 and the Python version in each file. Anything else (no directory, an edited template,
another jinja2) compiles from ``templates/`` as before, so the templates stay the source of
truth and a checkout without the directory renders the same bytes.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import jinja2

__all__ = ["BYTECODE_DIR", "CODE_OPTIONS", "InstalledBytecode"]

BYTECODE_DIR = Path(__file__).resolve().parent / "_bytecode"

# Every Environment option that changes the code a template compiles to; the key of each
# compiled template includes them (the environment is built from this same mapping).
CODE_OPTIONS: dict[str, object] = {
    "autoescape_extensions": ("html", "htm", "svg", "html.j2", "htm.j2", "svg.j2"),
    "keep_trailing_newline": True,
    "trim_blocks": True,
    "lstrip_blocks": True,
    "undefined": "StrictUndefined",
}


class InstalledBytecode(jinja2.BytecodeCache):
    """Compiled templates in ``directory``: read at run time, written only by
    :func:`wheel_size.render.bytecode.precompile`. ``loaded`` names the templates that came
    from it."""

    def __init__(self, directory: Path, *, write: bool = False) -> None:
        self.directory = directory
        self.write = write
        self.loaded: set[str] = set()

    def get_cache_key(self, name: str, filename: str | None = None) -> str:
        # Not the file's path (jinja2's default): the package may sit anywhere.
        key = repr((name, jinja2.__version__, sorted(CODE_OPTIONS.items())))
        return hashlib.sha256(key.encode()).hexdigest()

    def _path(self, bucket: jinja2.bccache.Bucket) -> Path:
        return self.directory / f"{bucket.key}.jinja2"

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        try:
            with self._path(bucket).open("rb") as f:
                bucket.load_bytecode(f)  # resets the bucket unless source and Python match
        except OSError:
            return
        if bucket.code is not None:
            self.loaded.add(bucket.key)

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        if not self.write:
            return
        path = self._path(bucket)
        tmp = path.with_suffix(".tmp")
        with tmp.open("wb") as f:
            bucket.write_bytecode(f)
        tmp.replace(path)
