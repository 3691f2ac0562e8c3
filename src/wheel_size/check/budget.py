"""What a pull request may add to a wheel: growth budgets and absolute ceilings.

A growth budget bounds the change against the nightly (MB and percent); a ceiling bounds the
size itself (a project limit such as 850 MB, or PyPI's file-size limit). Sizes are compared in
bytes; MB means 1,048,576 bytes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from wheel_size.check.document import CeilingBreachDocument
from wheel_size.errors import InputError
from wheel_size.units import MB, to_mb

__all__ = ["Breach", "Budget", "CeilingBreach", "Limits", "parse_ceilings"]


@dataclass(frozen=True)
class Breach:
    """One budget a wheel exceeds: ``kind`` is growth, growth-pct, ceiling or pypi.

    ``base_over`` (pull-request ceilings only): the nightly compared with was already over
    this ceiling, so the pull request is held to it only because it grows the wheel."""

    kind: str
    limit_bytes: int | None
    limit_pct: float | None = None
    base_over: bool = False


@dataclass(frozen=True)
class Budget:
    growth_mb: float | None = 5.0
    growth_pct: float | None = None
    ceiling_mb: float | None = None
    ceilings: Mapping[str, float] = field(default_factory=dict)  # variant -> MB
    pypi_limit_mb: float | None = None

    def __post_init__(self) -> None:
        values = {
            "budget-mb": self.growth_mb,
            "budget-pct": self.growth_pct,
            "ceiling-mb": self.ceiling_mb,
            "pypi-limit-mb": self.pypi_limit_mb,
            **{f"ceiling {k}": v for k, v in self.ceilings.items()},
        }
        for name, value in values.items():
            if value is not None and not value > 0:
                raise InputError(f"{name} must be a positive number, not {value:g}")

    def ceiling_for(self, variant: str | None) -> float | None:
        if variant is not None and variant in self.ceilings:
            return self.ceilings[variant]
        return self.ceiling_mb

    def breaches(self, variant: str | None, size: int, base: int | None) -> list[Breach]:
        """Every budget ``size`` exceeds; growth only where a base size is known."""
        found: list[Breach] = []
        if base is not None:
            delta = size - base
            if self.growth_mb is not None and delta > self.growth_mb * MB:
                found.append(Breach("growth", round(self.growth_mb * MB)))
            if self.growth_pct is not None and base > 0 and delta * 100 > self.growth_pct * base:
                found.append(Breach("growth-pct", None, self.growth_pct))
        ceiling = self.ceiling_for(variant)
        if ceiling is not None and size > ceiling * MB:
            found.append(Breach("ceiling", round(ceiling * MB)))
        if self.pypi_limit_mb is not None and size > self.pypi_limit_mb * MB:
            found.append(Breach("pypi", round(self.pypi_limit_mb * MB)))
        return found


def parse_ceilings(values: list[str] | None) -> dict[str, float]:
    """``VARIANT=MB`` pairs (``cuda12_8=850``) as given on the command line or an input."""
    from wheel_size.variants import canonical_variant

    out: dict[str, float] = {}
    for value in values or []:
        name, sep, number = value.partition("=")
        variant = canonical_variant(name) or name.strip()
        try:
            mb: float | None = float(number)
        except ValueError:
            mb = None
        if not sep or not variant or mb is None:
            raise InputError(f"ceiling {value!r}: expected VARIANT=MB, e.g. cuda12_8=850")
        out[variant] = mb
    return out


@dataclass(frozen=True)
class Limits:
    """The size limits the nightly also watches (a project ceiling, PyPI's file-size limit)
    and the acknowledgement that accepts a known breach, as the PR check's footer does."""

    budget: Budget
    acknowledgement: str | None = None


@dataclass(frozen=True)
class CeilingBreach:
    """A watched variant whose newest stored size is over a limit."""

    variant: str
    date: str
    size_bytes: int
    breaches: tuple[Breach, ...]

    def to_dict(self) -> CeilingBreachDocument:
        return {
            "variant": self.variant,
            "date": self.date,
            "size_bytes": self.size_bytes,
            "size_mb": to_mb(self.size_bytes),
            "limits": [{"kind": b.kind, "limit_bytes": b.limit_bytes} for b in self.breaches],
        }
