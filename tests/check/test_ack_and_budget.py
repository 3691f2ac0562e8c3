"""The acknowledgement footer and the budgets, on their own."""

from __future__ import annotations

import pytest

from wheel_size.check.ack import acknowledgement
from wheel_size.check.budget import Budget, parse_ceilings
from wheel_size.errors import InputError
from wheel_size.units import MB


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        ("Adds sm_120 kernels.\n\nWheel-Size: new arch for Blackwell\n", "new arch for Blackwell"),
        ("wheel-size:   bundling cuDNN 9.10  \r\n", "bundling cuDNN 9.10"),
        ("Wheel-Size: first\nWheel-Size: second\n", "second"),
        ("See the Wheel-Size: footer docs", None),  # not at the start of a line
        ("Wheel-Size:\n", None),  # no reason
        ("", None),
        (None, None),
    ],
)
def test_acknowledgement_footer(body: str | None, reason: str | None) -> None:
    assert acknowledgement(body) == reason


FORGED = {
    "html comment": "Fixes a typo.\n\n<!--\nWheel-Size: forged\n-->\n",
    "inline html comment": "Fixes a typo. <!--\nWheel-Size: forged\n-->\n",
    "backtick fence": "Fixes a typo.\n\n```\nWheel-Size: forged\n```\n",
    "tilde fence": "Fixes a typo.\n\n~~~text\nWheel-Size: forged\n~~~\n",
    "unclosed fence": "Fixes a typo.\n\n````\nWheel-Size: forged\n",
    "indented code": "Fixes a typo.\n\n    Wheel-Size: forged\n",
    "blockquote": "> Wheel-Size: forged\n",
    "lazy blockquote line": "> quoted\nWheel-Size: forged\n",
    "nested quote": "> > Wheel-Size: forged\n",
    "details, blank lines": (
        "<details>\n<summary>PR template</summary>\n\nWheel-Size: forged\n\n</details>\n"
    ),
    "details, one block": "<details>\nWheel-Size: forged\n</details>\n",
    "details, inline": "Notes <details>\nWheel-Size: forged\n</details>\n",
    "nested details": (
        "<details>\n\n<details>\n\nx\n\n</details>\n\nWheel-Size: forged\n\n</details>\n"
    ),
    "list item": "- Wheel-Size: forged\n",
    "inline code": "`Wheel-Size: <reason>`\n",
}


@pytest.mark.parametrize("where", sorted(FORGED))
def test_hidden_footer_does_not_acknowledge(where: str) -> None:
    assert acknowledgement(FORGED[where]) is None


def test_visible_footer_after_hidden_ones_counts() -> None:
    body = FORGED["details, blank lines"] + "\nWheel-Size: real reason\n" + FORGED["tilde fence"]
    assert acknowledgement(body) == "real reason"


def test_budget_breaches_in_bytes() -> None:
    budget = Budget(growth_mb=1, growth_pct=1, ceiling_mb=850, ceilings={"cpu": 200})
    assert budget.breaches("cuda12_8", 100 * MB + MB, 100 * MB) == []  # exactly the budget
    kinds = [b.kind for b in budget.breaches("cuda12_8", 200 * MB + MB + 1, 200 * MB)]
    assert kinds == ["growth"]  # +1 MB and a byte: over 1 MB, still under 1 %
    kinds = [b.kind for b in budget.breaches("cuda12_8", 851 * MB, 840 * MB)]
    assert kinds == ["growth", "growth-pct", "ceiling"]
    assert [b.kind for b in budget.breaches("cpu", 201 * MB, None)] == ["ceiling"]
    assert Budget(pypi_limit_mb=100).breaches(None, 100 * MB + 1, None)[0].kind == "pypi"


def test_ceilings_parse_variant_spellings() -> None:
    assert parse_ceilings(["cu128=850", "rocm6.4=1200", "cpu=300.5"]) == {
        "cuda12_8": 850.0,
        "rocm6_4": 1200.0,
        "cpu": 300.5,
    }
    with pytest.raises(InputError, match="expected VARIANT=MB"):
        parse_ceilings(["cuda12_8"])
    with pytest.raises(InputError, match="expected VARIANT=MB"):
        parse_ceilings(["cuda12_8=lots"])
    with pytest.raises(InputError, match="positive"):
        Budget(growth_mb=-1)


def test_budget_line_shows_limits_as_their_breaches_do() -> None:
    """The comment's budget line and a breach name one limit with one number (units.py)."""
    from wheel_size.check.run import CheckResult
    from wheel_size.check.view import check_view

    budget = Budget(growth_mb=5, ceiling_mb=850, ceilings={"cpu": 0.25}, pypi_limit_mb=100)
    view = check_view(CheckResult(checks=[], notes=[], acknowledgement=None), budget)
    assert view["budget"] == [
        "growth up to +5.0 MB per wheel",
        "size up to 850.0 MB",
        "cpu up to 0.25 MB",
        "PyPI's file-size limit of 100.0 MB",
    ]
