"""The reach table as data: which variants and shipped libraries a changed path can move.

The rules live in ``reach_table.yaml`` next to this module (correct for PyTorch's build:
hipified CUDA sources build for ROCm too, a build image moves the toolkits it names, a
submodule bump moves the libraries that link it), and this module is their one reader: every
path and suffix policy of the ranking is in that file, as auditwheel's policy is in its JSON
(issue 33; ``tests/regressions/ranking/test_path_policy.py`` keeps such lists out of code).
A project overrides any top-level key, or
any single pattern, with its own YAML file: :func:`load_reach_table`. A wrong file is one
clear :class:`~wheel_size.errors.InputError` naming the file and the key.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

import yaml

from wheel_size.errors import InputError

__all__ = ["ReachTable", "Submodule", "default_table", "load_reach_table"]

PATTERN_KEYS = (
    "no_ship", "binary_ci", "windows", "macos", "aarch64", "xpu", "rocm", "cuda_only",
    "hipified", "cpu_build", "build", "build_image", "native", "pin", "header", "codegen",
    "ci_config", "python_shipped",
    # the seed's categories, the candidate's status and the wheel-content matching
    "docs_tests", "image_scripts", "cmake", "kernel_library", "header_only_submodule",
    "device_dir", "device_file", "names_cuda", "compiled_source", "python_only",
    "operator_table", "vendored", "submodule_list", "family_source", "device_source",
    "library_file", "own_library", "own_library_prefix",
)  # fmt: skip
TOP_KEYS = ("patterns", "hipified_strength", "submodules", "libraries")
KINDS = ("all", "cuda", "rocm", "xpu", "cpu")


@dataclass(frozen=True)
class Submodule:
    kind: str  # all, cuda, rocm, xpu, cpu
    libraries: tuple[str, ...]


@dataclass(frozen=True)
class ReachTable:
    """The compiled table; ``source`` names where it came from (for messages)."""

    patterns: dict[str, re.Pattern[str]]
    hipified_strength: float
    submodules: dict[str, Submodule]
    libraries: tuple[tuple[re.Pattern[str], tuple[str, ...]], ...]
    source: str

    def match(self, key: str, path: str) -> bool:
        return bool(self.patterns[key].search(path))

    def own_library(self, path: str) -> str | None:
        """The project's own library a wheel member is (``torch_cuda`` for
        ``torch/lib/libtorch_cuda.so``): the first group of ``own_library`` that matched."""
        found = self.patterns["own_library"].search(path)
        return next((g for g in found.groups() if g), None) if found else None

    def submodule(self, path: str) -> Submodule | None:
        """The entry of ``third_party/<name>`` (or ``third_party/<name>.txt``, a pin)."""
        m = re.match(r"^third_party/([^/]+?)(?:\.txt)?$", path)
        if not m:
            return None
        wanted = m[1].lower()
        return next((s for n, s in self.submodules.items() if n.lower() == wanted), None)

    def libraries_of(self, path: str) -> tuple[str, ...]:
        """The shipped libraries (``torch_cuda``, ``torch_cpu`` …) a source path builds into."""
        sub = self.submodule(path)
        if sub is not None:
            return sub.libraries
        for pattern, libraries in self.libraries:
            if pattern.search(path):
                return libraries
        return ()


def _fail(source: str, key: str, problem: str) -> InputError:
    return InputError(f"reach table {source}: {key}: {problem}")


def _regex(source: str, key: str, value: Any) -> re.Pattern[str]:
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, list) or not items or not all(isinstance(i, str) for i in items):
        raise _fail(source, key, "give a regular expression or a list of them")
    try:
        return re.compile("|".join(f"(?:{i})" for i in items), re.I)
    except re.error as exc:
        raise _fail(source, key, f"not a regular expression ({exc})") from None


def _compile(doc: dict[str, Any], source: str) -> ReachTable:
    patterns = {k: _regex(source, f"patterns.{k}", doc["patterns"][k]) for k in PATTERN_KEYS}
    strength = doc["hipified_strength"]
    if not isinstance(strength, (int, float)) or not 0 <= strength <= 1:
        raise _fail(source, "hipified_strength", "give a number from 0 to 1")
    submodules = {}
    for name, entry in (doc["submodules"] or {}).items():
        if not isinstance(entry, dict) or entry.get("kind") not in KINDS:
            raise _fail(source, f"submodules.{name}", f"give kind: one of {', '.join(KINDS)}")
        unknown = set(entry) - {"kind", "libraries"}
        if unknown:
            raise _fail(source, f"submodules.{name}.{sorted(unknown)[0]}", "unknown key")
        submodules[str(name)] = Submodule(entry["kind"], tuple(entry.get("libraries") or ()))
    libraries = []
    for i, entry in enumerate(doc["libraries"] or []):
        if not isinstance(entry, dict) or set(entry) != {"path", "libraries"}:
            raise _fail(source, f"libraries[{i}]", "give path: and libraries:")
        libraries.append(
            (_regex(source, f"libraries[{i}].path", entry["path"]), tuple(entry["libraries"]))
        )
    return ReachTable(patterns, float(strength), submodules, tuple(libraries), source)


def _packaged() -> dict[str, Any]:
    text = (
        resources.files("wheel_size.regressions.ranking")
        .joinpath("reach_table.yaml")
        .read_text("utf-8")
    )
    doc = yaml.safe_load(text)
    assert isinstance(doc, dict)
    return doc


@cache
def default_table() -> ReachTable:
    """The packaged table (PyTorch's build)."""
    return _compile(_packaged(), "reach_table.yaml (packaged)")


def load_reach_table(path: Path) -> ReachTable:
    """The packaged table with ``path``'s keys replacing its own (``patterns`` per pattern)."""
    source = str(path)
    try:
        doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise InputError(f"reach table {source}: cannot read it ({exc.strerror})") from None
    except yaml.YAMLError as exc:
        raise InputError(f"reach table {source}: not YAML ({str(exc).splitlines()[0]})") from None
    if doc is None:
        doc = {}
    if not isinstance(doc, dict):
        raise InputError(f"reach table {source}: give a mapping of {', '.join(TOP_KEYS)}")
    for key in doc:
        if key not in TOP_KEYS:
            raise _fail(source, str(key), f"unknown key (known: {', '.join(TOP_KEYS)})")
    merged = _packaged()
    for key, value in doc.items():
        if key == "patterns":
            if not isinstance(value, dict):
                raise _fail(source, "patterns", "give a mapping of pattern names")
            for name in value:
                if name not in PATTERN_KEYS:
                    raise _fail(source, f"patterns.{name}", "unknown key")
            merged["patterns"] = {**merged["patterns"], **value}
        elif key == "submodules":
            if not isinstance(value, dict):
                raise _fail(source, "submodules", "give a mapping of submodule names")
            merged["submodules"] = {**merged["submodules"], **value}
        else:
            merged[key] = value
    return _compile(merged, source)
