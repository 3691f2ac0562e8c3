"""The fingerprint of a night: which variants moved, in which direction, by how much.

"Only the CUDA 12.x wheels shrank, by ~30 MB" or "only rocm7_0 grew" narrows the suspects
before any commit is read: a ROCm-only change cannot move a CUDA wheel, a build-script change
for CUDA 12.8/12.9 cannot move CUDA 12.6. This module turns the night's per-variant deltas
into that reading (and the one-sentence summary the issue shows), for growth and for shrink.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from wheel_size.units import format_mb
from wheel_size.variants import KIND_LABEL, VariantKey, variant_key

__all__ = ["Fingerprint", "fingerprint"]

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
        """One sentence for the issue: what the pattern points to, growth or shrink."""
        if self.direction == 0 or not self.moved:
            own = (
                "no delta"
                if self.own_mb is None
                else f"no jump ({format_mb(self.own_mb, signed=True, digits=2)} MB)"
            )
            if not self.elsewhere:
                return f"{self.variant} has {own} that night, and no other variant jumped."
            moved = ", ".join(
                f"{name} ({format_mb(mb, signed=True, digits=2)} MB)" for name, mb in self.elsewhere
            )
            return f"{self.variant} has {own} that night; the variants that moved: {moved}."
        mb = f"{format_mb(self.magnitude_mb)} MB"
        size = (
            "tens of MB point to a bundled library, an architecture list or a dependency"
            if self.large
            else "a few MB point to compiler flags, kernel families or new code"
            if self.small
            else "the size alone does not tell a library from a kernel family"
        )
        if not self.flat and not self.opposite:
            if len(self.moved) == 1:
                return (
                    f"{self.variant} {self.verb} by {mb}; no other variant has data that night, "
                    f"so device code and shared code cannot be told apart; {size}."
                )
            return (
                f"Every variant {self.verb} (the CPU wheel too): shared C++ code or build "
                f"configuration ({mb} here; {size})."
            )
        moved_kinds = self.moved_kinds()
        cpu_flat = any(k.kind == "cpu" for k in self.flat)
        noun = "growth" if self.direction > 0 else "shrinkage"
        if moved_kinds == {"cpu"}:
            what = "Only the CPU wheel"
            cause = "CPU-only code or the CPU build's configuration"
        elif "cpu" in moved_kinds:
            what = f"The CPU wheel and {self.scope()}"
            cause = "shared C++ code or build configuration"
        else:
            what = f"Only {self.scope()}"
            specific = any(
                k.kind == kind for kind in moved_kinds for k in self.flat + self.opposite
            )
            if specific:
                cause = (
                    "a change specific to those builds: their toolkit version, architecture "
                    "list, bundled libraries or build image"
                )
            else:
                cause = f"compiled {'/'.join(sorted(KIND_LABEL[k] for k in moved_kinds))} " + (
                    "device code (kernel instantiations, CUTLASS/FBGEMM kernels) or libraries"
                )
        cpu_note = ""
        if cpu_flat and "cpu" not in moved_kinds:
            cpu_note = f" The CPU wheel did not {'grow' if self.direction > 0 else 'shrink'}"
            cpu = [self.deltas[k.name] for k in self.flat if k.kind == "cpu"]
            shown = format_mb(cpu[0] or 0.0, signed=True, digits=2) if len(cpu) == 1 else ""
            # a small change the table shows beside "did not grow": say why it does not count
            if shown and shown != format_mb(0.0, signed=True, digits=2):
                cpu_note += f" ({shown} MB: too little to count as moving with it)"
            cpu_note += "."
        return f"{what} {self.verb} ({mb} here).{cpu_note} This {noun} points to {cause}; {size}."


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
