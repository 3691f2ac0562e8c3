"""The image's build step: every template compiled once into the installed package.

``python -m wheel_size.render.bytecode [DIRECTORY]`` (the ``Dockerfile`` runs it after
``pip install``) writes each template's code object where :mod:`wheel_size.render.compiled`
reads it at run time; see that module for when a compiled template is used.
"""

from __future__ import annotations

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


USAGE = "usage: python -m wheel_size.render.bytecode [DIRECTORY]"


def main(argv: list[str]) -> int:
    """``python -m wheel_size.render.bytecode [DIRECTORY]``: the image's build stage.
    (argparse is for ``cli/`` alone; one optional folder needs none.) An option is never
    taken for the folder: ``--help`` prints the usage, any other is an error."""
    if argv and argv[0] in ("-h", "--help"):
        print(f"{USAGE}\n\nCompile every template into DIRECTORY (default: inside the package).")
        return 0
    if len(argv) > 1 or (argv and argv[0].startswith("-")):
        print(f"{USAGE}\nerror: unexpected arguments {' '.join(argv)}", file=sys.stderr)
        return 2
    precompile(Path(argv[0]) if argv else BYTECODE_DIR)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
