"""The import rules of the package (issue 11), checked on the source with ``ast``.

Layers, lowest first (a module may import its own layer and the layers below)::

    0 base          errors fileio oneline progress crash plan render units trust interrupts markers
    1 parsers       wheel rocm cuda native kernels installed   (bytes and streams in, facts out)
    2 model         history series variants dates ports
                    (the size history, the one size series, and the typed interfaces the
                    rest needs from GitHub: :mod:`wheel_size.ports`)
    3 domain        collect report diff audit split check evidence regressions dashboard
                    sticky bisect
    4 orchestration track nightly                   (the nightly job as one call)
    5 adapters      github cli action __main__      (PyGithub, argv, INPUT_*: the edges)

``github/`` sits with the adapters: it *implements* the ports with PyGithub, so nothing
below it needs PyGithub, and a test or another host could implement them otherwise.

Rules:

- outside ``cli/`` nothing imports ``wheel_size.cli`` or ``argparse``;
- PyGithub (``github``) is imported only under ``wheel_size/github/``;
- no import cycle between the packages of ``wheel_size``;
- at most two package pairs import from a lower layer to a higher one.

Imports under ``if TYPE_CHECKING:`` and inside functions count like any other: a lazy import
is still a dependency. A new package must be placed in a layer here.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

from conftest import SRC

PACKAGE = SRC / "wheel_size"

LAYERS: list[set[str]] = [
    {"errors", "fileio", "oneline", "progress", "crash", "plan", "render", "units", "trust"}
    | {"cpus"}
    | {"__init__", "interrupts", "markers"},
    {"wheel", "rocm", "cuda", "native", "kernels", "installed"},
    {"history", "series", "variants", "dates", "ports"},
    {"collect", "report", "diff", "audit", "split", "check", "evidence", "regressions"}
    | {"dashboard", "sticky", "bisect", "deps", "quota"},
    {"track", "nightly"},
    {"github", "cli", "action", "__main__"},
]
MAX_UPWARD = 2

# Nothing outside cli/ imports the CLI any more (issue 11 item 1: every Action mode builds
# typed options); the set stays to name an exception should one ever be needed.
PENDING_CLI_IMPORTS: set[str] = set()
# (diff/ and audit/ are siblings over native/ since issue 11 item 4: no cycle is tolerated.)
PENDING_CYCLES: set[frozenset[str]] = set()


def _modules() -> Iterator[tuple[str, Path]]:
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(SRC).with_suffix("").parts
        yield ".".join(parts[:-1] if parts[-1] == "__init__" else parts), path


_KNOWN = {module for module, _ in _modules()}


def _imports(module: str, path: Path) -> Iterator[str]:
    """Every module name ``path`` imports (relative imports resolved)."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                yield ".".join([*base, *([node.module] if node.module else [])])
            elif node.module:
                yield node.module
                # ``from wheel_size import cli`` imports the subpackage
                yield from (
                    f"{node.module}.{alias.name}"
                    for alias in node.names
                    if f"{node.module}.{alias.name}" in _KNOWN
                )


def _top(module: str) -> str:
    """``wheel_size.regressions.issues.alerts`` → ``regressions``; ``wheel_size`` → ``__init__``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def _layer(package: str) -> int:
    for index, layer in enumerate(LAYERS):
        if package in layer:
            return index
    raise AssertionError(f"wheel_size.{package} is in no layer: add it to LAYERS in {__file__}")


def _graph() -> dict[str, set[tuple[str, str]]]:
    """package → {(imported package, importing module)} between packages of wheel_size."""
    graph: dict[str, set[tuple[str, str]]] = defaultdict(set)
    for module, path in _modules():
        for name in _imports(module, path):
            if name == "wheel_size" or name.startswith("wheel_size."):
                mine, theirs = _top(module), _top(name)
                if module in PENDING_CLI_IMPORTS and theirs == "cli":
                    continue  # tolerated above; the cycle action ↔ cli goes with it
                if mine != theirs and name != "wheel_size":
                    graph[mine].add((theirs, module))
    return graph


def test_cli_and_argparse_only_under_cli() -> None:
    offenders = []
    for module, path in _modules():
        if module.startswith("wheel_size.cli") or module == "wheel_size.__main__":
            continue
        for name in _imports(module, path):
            cli = name.split(".")[0] == "argparse" or name.startswith("wheel_size.cli")
            if cli and module not in PENDING_CLI_IMPORTS:
                offenders.append(f"{module} imports {name}")
    assert not offenders, "\n".join(offenders)


def test_pygithub_only_under_github() -> None:
    offenders = [
        f"{module} imports {name}"
        for module, path in _modules()
        if not module.startswith("wheel_size.github")
        for name in _imports(module, path)
        if name.split(".")[0] == "github"
    ]
    assert not offenders, "\n".join(offenders)


def test_every_package_has_a_layer() -> None:
    for module, _ in _modules():
        _layer(_top(module))


def test_no_cycle_between_packages() -> None:
    graph = {pkg: {theirs for theirs, _ in edges} for pkg, edges in _graph().items()}
    cycles = []

    def visit(node: str, path: list[str]) -> None:
        for nxt in sorted(graph.get(node, ())):
            if nxt in path:
                cycle = path[path.index(nxt) :]
                if frozenset(cycle) not in PENDING_CYCLES:
                    cycles.append(" → ".join([*cycle, nxt]))
            elif len(path) < len(graph) + 1:
                visit(nxt, [*path, nxt])

    for start in sorted(graph):
        visit(start, [start])
    assert not cycles, "import cycles between packages:\n" + "\n".join(sorted(set(cycles)))


def test_at_most_two_imports_run_upwards() -> None:
    upward = sorted(
        {
            (mine, theirs, module)
            for mine, edges in _graph().items()
            for theirs, module in edges
            if _layer(theirs) > _layer(mine)
        }
    )
    pairs = sorted({(mine, theirs) for mine, theirs, _ in upward})
    shown = "\n".join(f"{module} → wheel_size.{theirs}" for _, theirs, module in upward)
    assert len(pairs) <= MAX_UPWARD, f"lower → higher imports:\n{shown}"
