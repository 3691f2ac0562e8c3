"""The one jinja2 environment every rendered text goes through."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import jinja2

__all__ = ["render", "template_dir"]


def template_dir() -> Path:
    """Where the templates are: inside the installed package, or at the checkout root."""
    packaged = Path(__file__).resolve().parents[1] / "templates"
    if packaged.is_dir():
        return packaged
    return Path(__file__).resolve().parents[3] / "templates"


def _format_mb(value: float | None, signed: bool = False, digits: int = 1) -> str:
    if value is None:
        return "—"
    value = float(value)  # fails loudly on an undefined variable
    if round(value, digits) == 0:
        value = 0.0  # no "-0.0" for a change that rounds away
    return f"{value:+,.{digits}f}" if signed else f"{value:,.{digits}f}"


@functools.cache
def _environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(template_dir()),
        # Markdown and plain text are the common case; HTML templates escape explicitly
        # with autoescape blocks, selected by file name below.
        # (``page.html.j2`` counts as HTML: select_autoescape matches the name's ending.)
        autoescape=jinja2.select_autoescape(
            enabled_extensions=("html", "htm", "svg", "html.j2", "htm.j2", "svg.j2")
        ),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["mb"] = _format_mb
    return env


def render(template_name: str, **context: Any) -> str:
    """Render ``templates/<template_name>`` with ``context``; missing variables are errors."""
    return _environment().get_template(template_name).render(**context)
