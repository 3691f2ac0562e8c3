"""The fingerprint of a night: which variants moved, in which direction, by how much.

"Only the CUDA 12.x wheels shrank, by ~30 MB" or "only rocm7_0 grew" narrows the suspects
before any commit is read: a ROCm-only change cannot move a CUDA wheel, a build-script change
for CUDA 12.8/12.9 cannot move CUDA 12.6. This module turns the night's per-variant deltas
into that reading (and the one-sentence summary the issue shows), for growth and for shrink.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal, TypedDict

from wheel_size.render import render
from wheel_size.variants import KIND_LABEL, VariantKey, variant_key

__all__ = ["Fingerprint", "Reading", "fingerprint"]

SizeClass = Literal["large", "small", "medium"]


class Reading(TypedDict):
    """The facts of the cross-variant sentence (``templates/cross_reading.txt.j2``)."""

    # none: nothing moved (or no jump); alone: no other variant has data; every: all
    # moved; pattern: some moved, some did not
    case: Literal["none", "alone", "every", "pattern"]
    variant: str
    direction: int
    magnitude_mb: float
    size_class: SizeClass
    own_mb: float | None  # a night without a jump: the variant's own change
    elsewhere: list[tuple[str, float]]  # ... and the variants that did move
    who: Literal["cpu", "cpu-and", "only"]  # only the CPU wheel; it and others; only others
    scope: str  # Fingerprint.scope(): "CUDA 12.8, 12.9", "ROCm", ...
    cause: Literal["cpu", "shared", "specific", "device"]
    device_kinds: list[str]  # cause "device": the kinds whose device code, by label
    cpu_flat: bool  # a CPU wheel stayed flat while GPU variants moved
    cpu_mb: float | None  # ... its change, when it is the only CPU wheel


#: A variant "moved" when it changed at least this share of the event's change (and 0.2 MB).
MOVED_SHARE = 0.25
MOVED_MIN_MB = 0.2
#: Tens of MB point to bundled libraries, arch lists and dependencies; a few MB to flags
#: and kernel families; in between, size says little.
LARGE_MB = 20.0
SMALL_MB = 5.0


@dataclass(frozen=True)
class Fingerprint:
    """The night's deltas read as: moved (with the event), flat, moved the other way."""

    direction: int  # +1 growth, -1 shrink, 0 no change known
    variant: str  # the event's variant
    magnitude_mb: float  # |delta| of the event's variant
    deltas: dict[str, float | None]
    moved: tuple[VariantKey, ...]
    flat: tuple[VariantKey, ...]
    opposite: tuple[VariantKey, ...]
    missing: tuple[str, ...]
    # A night without a jump in ``variant``: its own change, and the variants that did
    # move (name, MB) -- said instead of ranking anything.
    own_mb: float | None = None
    elsewhere: tuple[tuple[str, float], ...] = ()

    @property
    def large(self) -> bool:
        return self.magnitude_mb >= LARGE_MB

    @property
    def small(self) -> bool:
        return self.magnitude_mb < SMALL_MB

    @property
    def verb(self) -> str:
        return "grew" if self.direction >= 0 else "shrank"

    def moved_kinds(self) -> set[str]:
        return {k.kind for k in self.moved}

    def flat_kinds(self) -> set[str]:
        return {k.kind for k in self.flat}

    def scope(self) -> str:
        """A short name for what moved: "all variants", "CUDA 12.8, 12.9", "ROCm", ..."""
        if not self.moved:
            return "no variant"
        if not self.flat and not self.opposite:
            return "every variant" if len(self.moved) > 1 else self.moved[0].name
        kinds = sorted(self.moved_kinds())
        parts = []
        for kind in kinds:
            moved = [k for k in self.moved if k.kind == kind]
            others = [k for k in self.flat + self.opposite if k.kind == kind]
            if others and all(k.version for k in moved):
                versions = ", ".join(sorted({str(k.version) for k in moved}))
                parts.append(f"{KIND_LABEL[kind]} {versions}")
            else:
                parts.append(KIND_LABEL[kind])
        text = " and ".join(parts)
        pythons = {k.python for k in self.moved}
        still = {k.python for k in self.flat + self.opposite}
        if len(pythons) == 1 and None not in pythons and still - pythons:
            text += f" (Python {pythons.pop()} only)"
        return text

    def reading(self) -> str:
        """One sentence for the issue: what the pattern points to, growth or shrink
        (``cross_reading.txt.j2`` words the facts :meth:`reading_facts` gives)."""
        return render("cross_reading.txt.j2", r=self.reading_facts())

    def reading_facts(self) -> Reading:
        """What the cross-variant sentence says, as facts: which case, who moved, what
        that points to."""
        size_class: SizeClass = "large" if self.large else "small" if self.small else "medium"
        facts: Reading = {
            "case": "pattern",
            "variant": self.variant,
            "direction": self.direction,
            "magnitude_mb": self.magnitude_mb,
            "size_class": size_class,
            "own_mb": self.own_mb,
            "elsewhere": list(self.elsewhere),
            "who": "only",
            "scope": "",
            "cause": "device",
            "device_kinds": [],
            "cpu_flat": False,
            "cpu_mb": None,
        }
        if self.direction == 0 or not self.moved:
            return {**facts, "case": "none"}
        if not self.flat and not self.opposite:
            return {**facts, "case": "alone" if len(self.moved) == 1 else "every"}
        moved_kinds = self.moved_kinds()
        if moved_kinds == {"cpu"}:
            facts["who"], facts["cause"] = "cpu", "cpu"
        elif "cpu" in moved_kinds:
            facts["who"], facts["cause"], facts["scope"] = "cpu-and", "shared", self.scope()
        else:
            facts["scope"] = self.scope()
            others = self.flat + self.opposite
            if any(k.kind == kind for kind in moved_kinds for k in others):
                facts["cause"] = "specific"
            else:
                facts["device_kinds"] = sorted(KIND_LABEL[k] for k in moved_kinds)
        if any(k.kind == "cpu" for k in self.flat) and "cpu" not in moved_kinds:
            facts["cpu_flat"] = True
            cpu = [self.deltas[k.name] for k in self.flat if k.kind == "cpu"]
            # one CPU wheel's small change, shown beside "did not grow": the sentence says
            # why it does not count
            facts["cpu_mb"] = (cpu[0] or 0.0) if len(cpu) == 1 else None
        return facts


def fingerprint(
    variant: str,
    deltas: Mapping[str, float | None],
    *,
    jumped: bool = True,
    threshold_mb: float = MOVED_MIN_MB,
) -> Fingerprint:
    """Read the night's ``deltas`` (MB, None: no data) around the event's ``variant``.

    ``jumped=False``: the variant did not cross the threshold that night; nothing is read
    into its change (direction 0, nothing to rank) and the variants whose change reached
    ``threshold_mb`` are named instead."""
    table = dict(sorted(deltas.items()))
    jump = table.get(variant)
    if jump is None or jump == 0 or not jumped:
        elsewhere = tuple(
            (name, delta)
            for name, delta in table.items()
            if name != variant and delta is not None and abs(delta) >= threshold_mb
        )
        return Fingerprint(
            0, variant, abs(jump or 0.0), table, (), (), (), tuple(sorted(table)), jump, elsewhere
        )
    direction = 1 if jump > 0 else -1
    bar = max(MOVED_MIN_MB, MOVED_SHARE * abs(jump))
    moved, flat, opposite, missing = [], [], [], []
    for name, delta in table.items():
        if delta is None:
            missing.append(name)
            continue
        key = variant_key(name)
        if delta * direction >= bar:
            moved.append(key)
        elif -delta * direction >= bar:
            opposite.append(key)
        else:
            flat.append(key)
    if variant not in {k.name for k in moved}:
        moved.append(variant_key(variant))
    return Fingerprint(
        direction,
        variant,
        abs(jump),
        table,
        tuple(moved),
        tuple(flat),
        tuple(opposite),
        tuple(missing),
    )
