"""Every sentence a person reads comes from ``templates/`` (``docs/architecture.md``, house
rules; issue 33 item 2): this test counts the prose still written as Python string literals
in the analysis packages and fails when a package's count grows past its recorded ceiling.

What counts as prose: a string literal (an f-string counts once, its ``{}`` fields left out)
of at least three words, one of them lower-case, words being at least half of its
whitespace-separated parts (a marker ``event={} before={}``, a pattern, a format of fields
is no prose), e.g. ``"no other variant jumped"``, ``f"{n} commits in the window"``.

What is left out, and why:

* docstrings (they speak to a developer);
* the message of an exception (inside ``raise``, or any call of a name ending in ``Error``,
  ``Exception`` or ``Warning``) and of a log or warning call (``log.*``, ``logger.*``,
  ``logging.*``, ``warnings.warn``): a one-line diagnostic is written where the problem is
  found, naming the file (house rule "bad input"), not a document;
* patterns passed to ``re`` (they match text, they do not say it);
* ``assert`` messages (for developers).

The adapters (``cli/`` with its argparse help, ``action/``, ``github/``) and ``render/``
(the template machinery itself) are not analysis packages and are not counted.

Lower a ceiling when a change moves sentences into templates; never raise one: move the new
sentence into a template instead.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator

from conftest import REPO_ROOT

SRC = REPO_ROOT / "src" / "wheel_size"

#: Not analysis: process entry points, the GitHub adapters, the template machinery.
NOT_ANALYSIS = ("cli", "action", "github", "render", "__main__.py")

#: Prose literals per package (or top-level module), at most. Lower these; never raise them.
CEILING: dict[str, int] = {
    "audit": 46,
    "bisect": 21,
    "check": 67,  # +7: the PR check job moved here from github/ (not counted), issue 33 item 1
    "collect": 15,
    "dashboard": 1,
    "deps": 3,
    "diff": 8,
    "evidence": 6,
    "fileio.py": 2,
    "history": 25,
    "kernels": 20,
    "native": 3,
    "nightly": 3,
    "ports": 1,
    "quota": 1,
    "regressions/issues": 3,
    "regressions/ranking": 30,
    "regressions/window": 3,
    "report": 20,
    "rocm": 47,
    "series": 12,
    "split": 22,
    "sticky.py": 2,
    "track.py": 2,
    "wheel": 14,
}

_WORD = re.compile(r"[(\"'`]*[A-Za-z][A-Za-z'/-]*[)\"'`.,;:!?]*")
_LOG_OWNERS = {"log", "logger", "logging", "_log", "_logger", "LOG", "LOGGER", "warnings"}
_DIAGNOSTIC_SUFFIXES = ("Error", "Exception", "Warning")


def _text(node: ast.AST) -> str | None:
    """The literal's text (an f-string's fields as ``{}``), or None if it is no string."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(
            v.value if isinstance(v, ast.Constant) and isinstance(v.value, str) else "{}"
            for v in node.values
        )
    return None


def is_prose(text: str) -> bool:
    """Three words or more, one of them lower-case, and words at least half of what the
    text holds (so a marker ``key={} …``, a pattern or a format of fields is no prose)."""
    tokens = text.replace("{}", " ").split()
    words = [t for t in tokens if _WORD.fullmatch(t)]
    return len(words) >= 3 and any(w.islower() for w in words) and 2 * len(words) >= len(tokens)


def _callee(call: ast.Call) -> tuple[str | None, str]:
    """(owner, name) of a call: ``log.info`` → ("log", "info"), ``ValueError`` → (None, …)."""
    func = call.func
    if isinstance(func, ast.Attribute):
        owner = func.value
        name = owner.id if isinstance(owner, ast.Name) else None
        if isinstance(owner, ast.Attribute):
            name = owner.attr
        return name, func.attr
    if isinstance(func, ast.Name):
        return None, func.id
    return None, ""


def _exempt(node: ast.AST) -> bool:
    """A subtree whose strings are not read as documents (see the module docstring)."""
    if isinstance(node, (ast.Raise, ast.Assert)):
        return True
    if isinstance(node, ast.Call):
        owner, name = _callee(node)
        if name.endswith(_DIAGNOSTIC_SUFFIXES):
            return True
        if owner in _LOG_OWNERS or owner == "re":
            return True
    return False


def _docstring_nodes(tree: ast.AST) -> set[int]:
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and _text(body[0].value) is not None:
                found.add(id(body[0].value))
    return found


def prose_literals(source: str) -> Iterator[tuple[int, str]]:
    """(line, text) of each prose literal of a module's source."""
    tree = ast.parse(source)
    docstrings = _docstring_nodes(tree)

    def walk(node: ast.AST) -> Iterator[tuple[int, str]]:
        if _exempt(node) or id(node) in docstrings:
            return
        text = _text(node)
        if text is not None:
            if is_prose(text):
                yield node.lineno, text  # type: ignore[attr-defined]
            return  # an f-string's parts are not counted again
        for child in ast.iter_child_nodes(node):
            yield from walk(child)

    yield from walk(tree)


def _package(relative: str) -> str:
    """The file's package (``regressions/ranking``), or the module of the top level."""
    folder, _, name = relative.rpartition("/")
    return folder or name


def census() -> dict[str, list[str]]:
    """Package → "file:line: text" of every prose literal in the analysis packages."""
    found: dict[str, list[str]] = {}
    for path in sorted(SRC.rglob("*.py")):
        relative = path.relative_to(SRC).as_posix()
        if relative.split("/", 1)[0] in NOT_ANALYSIS:
            continue
        for line, text in prose_literals(path.read_text(encoding="utf-8")):
            found.setdefault(_package(relative), []).append(f"{relative}:{line}: {text!r}")
    return found


def test_prose_literals_do_not_grow() -> None:
    counts = {package: len(items) for package, items in census().items()}
    grown = {
        package: f"{count} > {CEILING.get(package, 0)}"
        for package, count in counts.items()
        if count > CEILING.get(package, 0)
    }
    assert grown == {}, (
        "sentences belong in templates/ (render them with wheel_size.render.render): "
        + "; ".join(f"{p}: {c}" for p, c in sorted(grown.items()))
    )


def test_the_census_tells_prose_from_the_rest() -> None:
    source = """
\"\"\"A module docstring of many words.\"\"\"
import logging, re
log = logging.getLogger(__name__)
def f(n):
    \"\"\"A function docstring of many words.\"\"\"
    said = f"{n} commits in the window"
    label = "no other variant jumped"
    marker = f"event={n} before={n} after={n}"
    pattern = re.compile(r"flash[_ -]?attn|the words of a pattern")
    log.warning("a log line of many words %s", n)
    if n:
        raise ValueError(f"{n} is not a size we can read")
    problem = ValueError("a problem kept for later")
    return [said, label, marker, "two words", "Only Capitalised Words", pattern, problem]
"""
    found = [text for _, text in prose_literals(source)]
    assert found == ["{} commits in the window", "no other variant jumped"]


if __name__ == "__main__":  # the census, for lowering the ceilings
    table = census()
    for package, items in sorted(table.items()):
        print(f"    {package!r}: {len(items)},")
    print("total:", sum(len(v) for v in table.values()))
