"""The hostile wheel generator (scripts/make_hostile_wheels.py) as an importable module.

Tests (and other engineers' tests: evidence, split, fuzzing) build the issue #10 archive
attacks with :func:`build` instead of keeping binary fixtures.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "make_hostile_wheels.py"


def generator() -> ModuleType:
    """The script, loaded once (registered in ``sys.modules`` so its dataclasses resolve)."""
    name = "make_hostile_wheels"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, SCRIPT)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


def case_names() -> list[str]:
    """Every hostile case the generator knows."""
    return list(generator().CASES)


def build(directory: Path, *names: str) -> dict[str, Path]:
    """Build the named cases (all when none are named) under ``directory``."""
    built: dict[str, Path] = generator().build_all(directory, only=list(names) or None)
    return built


def baseline(directory: Path) -> Path:
    """An honest wheel with the hostile wheels' name, for the other side of a diff."""
    path: Path = generator().make_baseline(directory)
    return path
