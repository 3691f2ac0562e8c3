"""Rendering of reports and messages from the jinja2 templates in ``templates/``."""

from wheel_size.render.templates import render

__all__ = ["render"]
