from __future__ import annotations

import jinja2
import pytest

from wheel_size.render.templates import _format_mb, render, template_dir


def test_templates_are_found_in_the_checkout() -> None:
    assert (template_dir() / "_selftest.txt.j2").is_file()


def test_missing_variables_are_errors() -> None:
    with pytest.raises(jinja2.UndefinedError):
        render("_selftest.txt.j2")


def test_mb_filter() -> None:
    assert render("_selftest.txt.j2", value=1234.56) == "+1,234.6 MB\n"
    assert _format_mb(None) == "—"
