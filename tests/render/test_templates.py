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


def test_safe_filters() -> None:
    from wheel_size.render.templates import _environment

    # Markdown templates are not autoescaped (string templates would be by default).
    template = (
        _environment()
        .overlay(autoescape=False)
        .from_string(
            "{{ t | md }} / {{ t | code }} / [x]({{ u | url }}) / {{ t | stripped_line }}"
            " / {{ names | map('md') | join(', ') }} / {{ 12 | md }}"
        )
    )
    text = template.render(
        t="[a](javascript:b)\n\u202e`c`", u="javascript:alert(1)", names=["<i>", "*b*"]
    )
    assert text == (
        "\\[a\\](javascript:b) `c` / \\[a\\](javascript:b) `c` / [x](#)"
        " / [a](javascript:b) `c` / &lt;i&gt;, \\*b\\* / 12"
    )


def test_html_templates_still_autoescape() -> None:
    from wheel_size.render.templates import _environment

    env = _environment()
    assert env.autoescape("page.html.j2") and not env.autoescape("issue.md.j2")  # type: ignore[operator]
