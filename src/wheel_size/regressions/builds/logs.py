"""Read a wheel's size from a build log: the lines build scripts print, whatever the tool.

Build jobs seldom say "the wheel is N bytes" in one agreed way. The default patterns read
what common tools print:

* ``actions/upload-artifact``: ``Artifact NAME has been successfully uploaded! Final size is
  N bytes`` — the artifact's own size, the unit of the size history;
* ``pip wheel``: ``Created wheel for torch: filename=torch-….whl size=N sha256=…``;
* ``ls -l``/``ls -lh``: ``-rw-r--r-- 1 root root 912345678 Oct 11 07:30 torch-….whl``;
* ``du -h``: ``871M  dist/torch-….whl`` (unit-less ``du`` is left out: plain ``du`` counts
  KiB blocks and ``du -b`` bytes, and a log does not say which);
* sentences: ``Wheel size: 870.1 MB``, ``size of torch-….whl is 912345678 bytes``.

Units: K/KB/KiB = 1,024 bytes, M/MB/MiB = 1,048,576 bytes (the project's MB), G = 2**30;
a size printed as ``871M`` is only known to ±0.5 MB, which is kept as its resolution so a
verdict never claims more precision than the log has. A custom pattern is a regex with a
``size`` group and optional ``unit``, ``file`` and ``artifact`` groups.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from wheel_size.errors import InputError
from wheel_size.render.templates import render_macro
from wheel_size.variants import variant_key

__all__ = [
    "DEFAULT_PATTERNS",
    "LogSize",
    "compile_log_pattern",
    "find_wheel_size",
    "variant_hints",
]

_NUMBER = r"(?P<size>\d[\d,]*(?:\.\d+)?)"
_UNIT = r"(?P<unit>bytes|byte|B|KiB|KB|kB|K|MiB|MB|M|GiB|GB|G)"
DEFAULT_PATTERNS: tuple[re.Pattern[str], ...] = (
    re.compile(
        r"Artifact (?P<artifact>\S+) has been successfully uploaded! Final size is "
        r"(?P<size>\d+) bytes"
    ),
    re.compile(r"filename=(?P<file>\S+\.whl) size=(?P<size>\d+)\b"),
    re.compile(
        rf"^[-l][rwxsStT-]{{9}}[.+@]?\s+\d+\s+\S+\s+\S+\s+{_NUMBER}(?P<unit>[KMG])?"
        r"\s+.*?(?P<file>\S+\.whl)\s*$"
    ),
    re.compile(rf"^{_NUMBER}(?P<unit>[KMG])\s+(?P<file>\S+\.whl)\s*$"),
    re.compile(
        r"(?i)\bsize\b(?:\s+of\s+(?P<file>\S+\.whl))?\s*(?:is\s*|[:=]\s*)"
        rf"{_NUMBER}\s*{_UNIT}(?![\w.])"
    ),
)
_TIMESTAMP = re.compile(r"^\ufeff?\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z ")
_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
_WHEEL = re.compile(r"([^\s/\\'\"=]+\.whl)\b")
_UNITS = {"": 1, "b": 1, "byte": 1, "bytes": 1, "k": 1 << 10, "kb": 1 << 10, "kib": 1 << 10}
_UNITS.update({"m": 1 << 20, "mb": 1 << 20, "mib": 1 << 20})
_UNITS.update({"g": 1 << 30, "gb": 1 << 30, "gib": 1 << 30})
_MAX_LINE = 4096  # longer lines are not size lines (minified JSON, base64 ...)


@dataclass(frozen=True)
class LogSize:
    """One size a log printed, and how precisely."""

    size_bytes: int
    resolution_bytes: int  # the size is only known to ± half of this
    kind: Literal["artifact", "wheel"]  # artifact: the zip upload-artifact stored
    name: str | None  # the wheel file or artifact the line names
    line: str  # the line, for the issue (trimmed)


def _say(reason: str, **values: object) -> str:
    """A log's reason for no size: the macro ``reason`` of ``build_verdict.txt.j2``."""
    return render_macro("build_verdict.txt.j2", reason, **values)


def compile_log_pattern(text: str) -> re.Pattern[str]:
    """A user's log pattern: must compile and have a ``size`` group."""
    try:
        pattern = re.compile(text)
    except re.error as exc:
        raise InputError(f"--build-evidence-log-pattern {text!r}: not a regex ({exc})") from None
    if "size" not in pattern.groupindex:
        raise InputError(
            f"--build-evidence-log-pattern {text!r}: needs a (?P<size>...) group with the number"
        )
    return pattern


def variant_hints(variant: str, artifact: str | None) -> tuple[str, ...]:
    """Strings that a wheel file name of this variant contains: the local version tag
    (``cu128`` for cuda12_8, ``rocm6.4`` for rocm6_4, ``cpu``) and the CPython tag."""
    python = variant_key(artifact or "").python  # "3.13t" → cp313t
    local = variant_key(variant).local_tag
    return (local, "cp" + python.replace(".", "")) if python else (local,)


def _value(match: re.Match[str]) -> tuple[int, int] | None:
    raw = match.group("size").replace(",", "")
    unit_text = (match.groupdict().get("unit") or "").lower()
    unit = _UNITS.get(unit_text)
    if unit is None:
        return None
    try:
        number = float(raw)
    except ValueError:
        return None
    decimals = len(raw.split(".", 1)[1]) if "." in raw else 0
    resolution = max(1, round(unit / 10**decimals)) if unit > 1 else 1
    return round(number * unit), resolution


def _clean(line: str) -> str:
    return _ANSI.sub("", _TIMESTAMP.sub("", line)).strip()


def _sizes(text: str, patterns: tuple[re.Pattern[str], ...]) -> list[LogSize]:
    found = []
    for raw_line in text.splitlines():
        if len(raw_line) > _MAX_LINE or not any(c.isdigit() for c in raw_line):
            continue
        line = _clean(raw_line)
        for pattern in patterns:
            match = pattern.search(line)
            if match is None:
                continue
            value = _value(match)
            if value is None:
                continue
            groups = match.groupdict()
            artifact = groups.get("artifact")
            name = artifact or groups.get("file")
            if name is None:
                wheel = _WHEEL.search(line)
                name = wheel[1] if wheel else None
            found.append(
                LogSize(
                    size_bytes=value[0],
                    resolution_bytes=value[1],
                    kind="artifact" if artifact else "wheel",
                    name=name.rsplit("/", 1)[-1] if name else None,
                    line=line[:200],
                )
            )
            break
    return found


def find_wheel_size(
    text: str,
    *,
    variant: str,
    artifact: str | None,
    patterns: tuple[re.Pattern[str], ...] = DEFAULT_PATTERNS,
) -> LogSize | str:
    """The variant's size printed in ``text`` (the last such line), or why there is none.

    An upload line naming the variant's artifact wins (it measures what the history
    measures). Otherwise the wheel lines: those naming a file that fits the variant best
    (its local version tag, then its Python tag); several different wheels that fit equally
    are ambiguous and give a reason instead of a guess.
    """
    sizes = _sizes(text, patterns)
    if not sizes:
        return _say("log_no_size")
    uploads = [s for s in sizes if s.kind == "artifact" and s.name == artifact]
    if uploads:
        return uploads[-1]
    wheels = [s for s in sizes if s.kind == "wheel"]
    if not wheels:
        return _say("log_no_upload", artifact=repr(artifact))
    named = [s for s in wheels if s.name and s.name.endswith(".whl")]
    if not named:
        return wheels[-1]
    hints = variant_hints(variant, artifact)

    def fit(size: LogSize) -> int:
        name = (size.name or "").lower()
        return sum(2 ** (len(hints) - i) for i, hint in enumerate(hints) if hint in name)

    best = max(fit(s) for s in named)
    fitting = [s for s in named if fit(s) == best]
    if best == 0 and len({s.name for s in fitting}) > 1:
        return _say("log_unnamed", variant=variant)
    if len({s.name for s in fitting}) > 1:
        names = sorted({s.name or "" for s in fitting})[:3]
        return _say("log_ambiguous", variant=variant, names=names)
    return fitting[-1]
