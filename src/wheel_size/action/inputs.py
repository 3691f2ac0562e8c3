"""Reading the Action's inputs: one declaration per input, one parser per kind of value.

The runner passes every input as ``INPUT_<NAME>`` (hyphens kept, spaces as underscores).
Each action declares its inputs once, in :mod:`wheel_size.action.tables` (name, kind,
default, description); ``action.yml``, the catalog and the README tables are generated from
those declarations, and :class:`Inputs` reads a value by its declared kind and default.
Every error is one line naming the input ("input threshold-mb must be a number of MB, not
'lots'"), given before anything is collected or stored.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from wheel_size.errors import InputError

__all__ = [
    "FLAG",
    "INTEGER",
    "ITEMS",
    "LINES",
    "MEGABYTES",
    "NUMBER",
    "TEXT",
    "WORDS",
    "ActionSpec",
    "Choice",
    "Input",
    "Inputs",
    "Integer",
    "Kind",
    "Number",
    "action_input",
    "bot_login_input",
    "repository",
    "words",
    "workspace_paths",
]


def action_input(env: Mapping[str, str], name: str) -> str:
    """The input ``name`` (as action.yml spells it), stripped; empty when not given."""
    return env.get(env_name(name), "").strip()


def env_name(name: str) -> str:
    """The variable the runner sets for input ``name``."""
    return f"INPUT_{name.replace(' ', '_').upper()}"


def words(text: str) -> list[str]:
    """A list input: items separated by spaces, commas or newlines."""
    return text.replace(",", " ").split()


class Kind:
    """What an input's text means: its type (for the docs) and its parser. ``parse`` gets a
    non-empty text; an empty value (and no default) is :meth:`empty`."""

    type_name = "string"

    def parse(self, name: str, text: str) -> object:
        raise NotImplementedError

    def empty(self) -> object:
        return None


class _Text(Kind):
    def parse(self, name: str, text: str) -> str:
        return text


class _Flag(Kind):
    type_name = "boolean"

    def parse(self, name: str, text: str) -> bool:
        value = text.lower()
        if value in ("false", "0", "no", "off"):
            return False
        if value in ("true", "1", "yes", "on"):
            return True
        raise InputError(f"input {name} must be true or false, not {value!r}")

    def empty(self) -> bool:
        return False


@dataclass(frozen=True)
class Integer(Kind):
    """A whole number, at least ``minimum`` when one is given."""

    minimum: int | None = None
    type_name = "integer"

    def parse(self, name: str, text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise InputError(f"input {name} must be a whole number, not {text!r}") from None
        if self.minimum is not None and value < self.minimum:
            raise InputError(f"input {name} must be at least {self.minimum}")
        return value


@dataclass(frozen=True)
class Number(Kind):
    """A finite number; ``unit`` names what it counts in the error (MB is 1,048,576 bytes)."""

    unit: str = ""
    type_name = "number"

    def parse(self, name: str, text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            value = float("nan")
        if value != value or value in (float("inf"), float("-inf")):
            what = f"a number of {self.unit}" if self.unit else "a number"
            raise InputError(f"input {name} must be {what}, not {text!r}")
        return value


@dataclass(frozen=True)
class Choice(Kind):
    """One of ``choices`` (``or_empty``: or nothing, said so in the error)."""

    choices: tuple[str, ...]
    or_empty: bool = False

    def parse(self, name: str, text: str) -> str:
        if text in self.choices:
            return text
        *head, last = self.choices
        said = f"{', '.join(head)} or {last}" if head else last
        said += " (or empty)" if self.or_empty else ""
        raise InputError(f"input {name} must be {said}, not {text!r}")


class _Words(Kind):
    """Items separated by spaces, commas or newlines."""

    type_name = "list"

    def parse(self, name: str, text: str) -> list[str]:
        return words(text)

    def empty(self) -> list[str]:
        return []


class _Items(Kind):
    """Items separated by commas or newlines (spaces belong to an item)."""

    type_name = "list"

    def parse(self, name: str, text: str) -> list[str]:
        return [i.strip() for i in text.replace("\n", ",").split(",") if i.strip()]

    def empty(self) -> list[str]:
        return []


class _Lines(Kind):
    """One item a line."""

    type_name = "list"

    def parse(self, name: str, text: str) -> list[str]:
        return [line.strip() for line in text.splitlines() if line.strip()]

    def empty(self) -> list[str]:
        return []


TEXT = _Text()
FLAG = _Flag()
INTEGER = Integer()
NUMBER = Number()
MEGABYTES = Number("MB")  # MB = 1,048,576 bytes (units.py)
WORDS = _Words()
ITEMS = _Items()
LINES = _Lines()


@dataclass(frozen=True)
class Input:
    """One input of one action, as its ``action.yml`` declares it.

    ``default`` is what the runner passes when the step does not set the input, and what the
    job uses when the variable is absent (``python -m wheel_size.action``) or empty; a
    ``${{ … }}`` default is the runner's alone. With ``empty_is_value`` an input set to ""
    means "none" rather than the default (``branch: ""`` is any branch)."""

    name: str
    kind: Kind
    default: str
    description: str
    deprecation: str | None = None
    empty_is_value: bool = False

    @property
    def code_default(self) -> str:
        return "" if self.default.startswith("${{") else self.default


@dataclass(frozen=True)
class ActionSpec:
    """One action: its name (the container argument), directory ("" for the root action),
    how messages name it, and its inputs in the order ``action.yml`` lists them."""

    name: str
    directory: str
    what: str
    declared: tuple[Input, ...]

    @property
    def inputs(self) -> frozenset[str]:
        return frozenset(i.name for i in self.declared)

    def read(self, env: Mapping[str, str]) -> Inputs:
        """This action's inputs as ``env`` gives them."""
        return Inputs(env, self.declared)


class Inputs:
    """The declared inputs of the running action, read from ``INPUT_*``. Reading an input
    the action does not declare, or as another kind, is a bug in the caller (LookupError,
    TypeError): every name read here is one of the action's table."""

    def __init__(self, env: Mapping[str, str], declared: tuple[Input, ...]) -> None:
        self.env = env
        self.declared = {i.name: i for i in declared}

    def _input(self, name: str) -> Input:
        try:
            return self.declared[name]
        except KeyError:
            raise LookupError(f"{name} is not declared for this action") from None

    def text_of(self, name: str) -> str:
        """The text that stands for input ``name``: given, else its default."""
        given = action_input(self.env, name)
        declared = self._input(name)
        if given or (declared.empty_is_value and env_name(name) in self.env):
            return given
        return declared.code_default

    def value(self, name: str) -> object:
        """Input ``name`` parsed by its kind (None, [] or False when empty)."""
        text = self.text_of(name)
        kind = self._input(name).kind
        return kind.parse(name, text) if text else kind.empty()

    def _typed(self, name: str, kinds: tuple[type, ...]) -> object:
        kind = self._input(name).kind
        if not isinstance(kind, kinds):
            raise TypeError(f"input {name} is declared as {type(kind).__name__}")
        return self.value(name)

    def text(self, name: str) -> str:
        return str(self._typed(name, (_Text, Choice)) or "")

    def optional_text(self, name: str) -> str | None:
        return self.text(name) or None

    def flag(self, name: str) -> bool:
        return bool(self._typed(name, (_Flag,)))

    def optional_integer(self, name: str) -> int | None:
        value = self._typed(name, (Integer,))
        return value if isinstance(value, int) else None

    def integer(self, name: str) -> int:
        value = self.optional_integer(name)
        if value is None:
            raise LookupError(f"input {name} has no default: read it with optional_integer")
        return value

    def optional_number(self, name: str) -> float | None:
        value = self._typed(name, (Number,))
        return value if isinstance(value, float) else None

    def number(self, name: str) -> float:
        value = self.optional_number(name)
        if value is None:
            raise LookupError(f"input {name} has no default: read it with optional_number")
        return value

    def items(self, name: str) -> list[str]:
        value = self._typed(name, (_Words, _Items, _Lines))
        return [str(v) for v in value] if isinstance(value, list) else []

    def check_all(self) -> None:
        """Parse every declared input, so a bad value is refused before any work."""
        for name in self.declared:
            self.value(name)


def bot_login_input(env: Mapping[str, str]) -> str | None:
    """The ``bot-login`` input: whose comments and issues are the bot's (empty: None, the
    token's user or github-actions[bot])."""
    from wheel_size.ports import check_login

    text = action_input(env, "bot-login")
    return check_login(text, "input bot-login") if text else None


def repository(env: Mapping[str, str]) -> str:
    """The ``repository`` input, else the repository the workflow runs in."""
    return action_input(env, "repository") or env.get("GITHUB_REPOSITORY", "")


def workspace_paths(env: Mapping[str, str], name: str, workspace: Path) -> list[Path]:
    """The files the input ``name`` lists: paths or glob patterns, relative to the workspace
    or absolute inside it (``${{ github.workspace }}/dist/*.whl``). One that matches
    nothing or leads out of the workspace is an input error naming ``name``."""
    from wheel_size.action.workspace import Workspace

    return Workspace.at(workspace, env).files(name, words(action_input(env, name)))
