"""The image's build step: every template compiled once into the installed package.

``python -m wheel_size.render.bytecode [DIRECTORY]`` (the ``Dockerfile`` runs it after
``pip install``) writes each template's code object where :mod:`wheel_size.render.compiled`
reads it at run time; see that module for when a compiled template is used.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from wheel_size.render.compiled import BYTECODE_DIR, InstalledBytecode
from wheel_size.render.templates import make_environment, template_dir

__all__ = ["precompile"]


def precompile(directory: Path = BYTECODE_DIR, root: Path | None = None) -> list[str]:
    """Compile every template under ``root`` (the package's) into ``directory``; returns
    the names compiled."""
    directory.mkdir(parents=True, exist_ok=True)
    cache = InstalledBytecode(directory, write=True)
    env = make_environment(template_dir() if root is None else root, cache)
    names = env.list_templates(filter_func=lambda name: name.endswith(".j2"))
    for name in names:
        env.get_template(name)
    return names


def main(argv: list[str]) -> None:
    """``python -m wheel_size.render.bytecode [DIRECTORY]``: the image's build stage."""
    parser = argparse.ArgumentParser(
        prog="python -m wheel_size.render.bytecode",
        description="Compile every template into DIRECTORY (default: inside the package).",
    )
    parser.add_argument("directory", nargs="?", type=Path, default=BYTECODE_DIR)
    precompile(parser.parse_args(argv).directory)


if __name__ == "__main__":
    main(sys.argv[1:])
