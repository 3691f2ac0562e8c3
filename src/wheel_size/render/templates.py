"""The one jinja2 environment every rendered text goes through.

Markdown templates are not autoescaped; text we did not write goes through the filters
below, which are all :func:`~wheel_size.render.safe_markdown.safe_inline` (or, for link
destinations and lines inside code fences, its companions):

- ``md``: inline text (``md(multiline=True)`` keeps line breaks, ``md(max_chars=80)``);
- ``code``: a name as a code span with a fence that fits it;
- ``url``: a link destination that cannot end early or run script;
- ``stripped_line``: a line inside a fenced code block.

Numbers go through the unit filters of :mod:`wheel_size.units` (MB = 1,048,576 bytes):
``mb`` (a value in MB: ``1,234.5``), ``in_mb`` (bytes shown in MB), ``size`` (bytes at a
readable scale: ``30.3 KB``), ``pct`` (``+1.2%``) and ``count`` (``1,234``); each takes
``signed=True``.

``tests/render/test_template_audit.py`` checks that every ``{{ }}`` in a Markdown template
uses one of them or is a value we write ourselves.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import jinja2

from wheel_size.render.safe_markdown import link_url, safe_inline, stripped_line
from wheel_size.units import format_count, format_mb, format_percent, format_size, in_mb

__all__ = ["make_environment", "render", "render_macro", "template_dir"]


def template_dir() -> Path:
    """Where the templates are: inside the installed package, or at the checkout root."""
    packaged = Path(__file__).resolve().parents[1] / "templates"
    if packaged.is_dir():
        return packaged
    return Path(__file__).resolve().parents[3] / "templates"


def _format_mb(value: float | None, signed: bool = False, digits: int = 1) -> str:
    return format_mb(value, signed=signed, digits=digits)


def _in_mb(value: int | float | None, signed: bool = False, digits: int = 1) -> str:
    return in_mb(value, signed=signed, digits=digits)


def _size(value: int | float | None, signed: bool = False) -> str:
    return "—" if value is None else format_size(value, signed=signed)


def _pct(value: float | None, signed: bool = False, digits: int = 1) -> str:
    return format_percent(value, signed=signed, digits=digits)


def _count(value: int | None, signed: bool = False) -> str:
    return "—" if value is None else format_count(int(value), signed=signed)


def _md(value: Any, multiline: bool = False, max_chars: int | None = None) -> str:
    return safe_inline(_text(value), multiline=multiline, max_chars=max_chars)


def _code(value: Any, max_chars: int | None = None) -> str:
    return safe_inline(_text(value), code=True, max_chars=max_chars)


def _text(value: Any) -> str:
    return value if isinstance(value, str) else str(value)  # str() fails on undefined


@functools.cache
def _environment() -> jinja2.Environment:
    from wheel_size.render.compiled import BYTECODE_DIR, InstalledBytecode

    installed = InstalledBytecode(BYTECODE_DIR) if BYTECODE_DIR.is_dir() else None
    return make_environment(template_dir(), installed)


def make_environment(
    root: Path, bytecode: jinja2.BytecodeCache | None = None
) -> jinja2.Environment:
    """The environment over the templates in ``root``, with compiled templates from
    ``bytecode`` where they are current (:mod:`wheel_size.render.compiled`)."""
    from wheel_size.render.compiled import CODE_OPTIONS

    extensions = CODE_OPTIONS["autoescape_extensions"]
    assert isinstance(extensions, tuple)
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(root),
        # Markdown and plain text are the common case; HTML templates escape explicitly
        # with autoescape blocks, selected by file name below.
        # (``page.html.j2`` counts as HTML: select_autoescape matches the name's ending.)
        autoescape=jinja2.select_autoescape(enabled_extensions=extensions),
        undefined=getattr(jinja2, str(CODE_OPTIONS["undefined"])),
        keep_trailing_newline=bool(CODE_OPTIONS["keep_trailing_newline"]),
        trim_blocks=bool(CODE_OPTIONS["trim_blocks"]),
        lstrip_blocks=bool(CODE_OPTIONS["lstrip_blocks"]),
        bytecode_cache=bytecode,
    )
    env.filters["mb"] = _format_mb
    env.filters["in_mb"] = _in_mb
    env.filters["size"] = _size
    env.filters["pct"] = _pct
    env.filters["count"] = _count
    env.filters["md"] = _md
    env.filters["code"] = _code
    env.filters["url"] = lambda value: link_url(_text(value))
    env.filters["stripped_line"] = lambda value: stripped_line(_text(value))
    return env


def render(template_name: str, **context: Any) -> str:
    """Render ``templates/<template_name>`` with ``context``; missing variables are errors."""
    return _environment().get_template(template_name).render(**context)


def render_macro(template_name: str, macro: str, **arguments: Any) -> str:
    """Call one macro of ``templates/<template_name>``: for a family of short sentences
    kept in one file (a ranked commit's evidence items), each said by name."""
    module = _environment().get_template(template_name).module
    return str(getattr(module, macro)(**arguments))
