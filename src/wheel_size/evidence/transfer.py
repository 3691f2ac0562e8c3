"""The diff result the evidence worker hands back to the nightly, as bounded plain JSON.

The worker process diffs two downloaded artifacts (which may be hostile) and writes its
result to a file; the nightly reads it back here. The result is trimmed in the worker (the
issue shows a handful of files and GPU rows) so that reading it back costs the nightly a
bounded amount of memory, and every field is type-checked on the way in.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Mapping
from typing import Any, TypeVar

from wheel_size.diff.model import FileDiff, WheelDiff
from wheel_size.diff.run import DiffReport
from wheel_size.evidence.document import KernelFamiliesDocument, TransferComparison, WorkerResult
from wheel_size.evidence.families import KernelFamilies
from wheel_size.evidence.reading import ContentReading

__all__ = [
    "MAX_RESULT_BYTES",
    "TransferError",
    "Transferred",
    "decode_result",
    "encode_families",
    "encode_result",
]

# What one comparison keeps: the files that changed most (the list is sorted so), their
# largest section and GPU changes, and the first problems. Strings are cut to _TEXT.
_FILES = 500
_ROWS = 64
_PROBLEMS = 50
_TEXT = 1000
#: The result file may not be larger (it is read into the nightly's own memory).
MAX_RESULT_BYTES = 32 << 20

T = TypeVar("T")


class TransferError(Exception):
    """The worker's result is not what it should be (a bug, or a truncated file)."""


def _cut(text: str) -> str:
    return text if len(text) <= _TEXT else text[: _TEXT - 1] + "…"


def _trim_file(f: FileDiff) -> FileDiff:
    return dataclasses.replace(
        f,
        path=_cut(f.path),
        sections=[dataclasses.replace(s, name=_cut(s.name)) for s in f.sections[:_ROWS]],
        gpu=[
            dataclasses.replace(g, arch=_cut(g.arch), section=_cut(g.section))
            for g in sorted(f.gpu, key=lambda g: -abs(g.delta))[:_ROWS]
        ],
        problems=[_cut(p) for p in f.problems[:_PROBLEMS]],
    )


def encode_result(report: DiffReport, reading: ContentReading) -> WorkerResult:
    """What the worker writes: the reading (made from the whole diff) and the diff, trimmed,
    with the number of files left out of each comparison."""
    comparisons: list[TransferComparison] = []
    for diff in report.comparisons:
        trimmed = dataclasses.replace(
            diff,
            old=_cut(diff.old),
            new=_cut(diff.new),
            files=[_trim_file(f) for f in diff.files[:_FILES]],
            problems=[_cut(p) for p in diff.problems[:_PROBLEMS]],
        )
        comparisons.append(
            {
                "diff": dataclasses.asdict(trimmed),
                "files_omitted": max(0, len(diff.files) - _FILES),
            }
        )
    return {
        "comparisons": comparisons,
        "unpaired_old": [_cut(x) for x in report.unpaired_old[:_PROBLEMS]],
        "unpaired_new": [_cut(x) for x in report.unpaired_new[:_PROBLEMS]],
        "problems": [_cut(x) for x in report.problems[:_PROBLEMS]],
        # Filled in by the worker after the family diff (worker._families).
        "families": None,
        "families_note": None,
        "reading": dataclasses.asdict(
            dataclasses.replace(
                reading,
                top_file=None if reading.top_file is None else _cut(reading.top_file),
                sections=[_cut(x) for x in reading.sections[:_ROWS]],
                files=[_cut(x) for x in reading.files[:_ROWS]],
                archs_grown=[_cut(a) for a in reading.archs_grown[:_ROWS]],
                archs_added=[_cut(a) for a in reading.archs_added[:_ROWS]],
            )
        ),
    }


def encode_families(families: KernelFamilies) -> KernelFamiliesDocument:
    """The families as the worker writes them (names cut like every other string)."""
    data = families.to_json()
    for rows in (data["grown"], data["shrunk"]):
        for row in rows:
            row["name"] = _cut(row["name"])
            row["archs"] = [_cut(a) for a in row["archs"][:_ROWS]]
    return data


def _value(kind: Any, value: Any, where: str) -> Any:
    origin = typing.get_origin(kind)
    if origin in (typing.Union, types.UnionType):
        for option in typing.get_args(kind):
            try:
                return _value(option, value, where)
            except TransferError:
                continue
        raise TransferError(f"{where}: unexpected {type(value).__name__}")
    if origin is list:
        (item,) = typing.get_args(kind)
        if not isinstance(value, list):
            raise TransferError(f"{where}: not a list")
        return [_value(item, v, f"{where}[{i}]") for i, v in enumerate(value)]
    if origin is typing.Literal:
        if value not in typing.get_args(kind):
            raise TransferError(f"{where}: unexpected value")
        return value
    if kind is type(None):
        if value is not None:
            raise TransferError(f"{where}: not null")
        return None
    if dataclasses.is_dataclass(kind) and isinstance(kind, type):
        return _object(kind, value, where)
    if kind in (int, str, bool):
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            raise TransferError(f"{where}: not {kind.__name__}")
        return value
    raise TransferError(f"{where}: cannot decode {kind!r}")


def _object(cls: type[T], data: Any, where: str) -> T:
    if not isinstance(data, dict):
        raise TransferError(f"{where}: not an object")
    hints = typing.get_type_hints(cls)
    values = {}
    for f in dataclasses.fields(cls):  # type: ignore[arg-type]
        if f.name not in data:
            raise TransferError(f"{where}: {f.name} missing")
        values[f.name] = _value(hints[f.name], data[f.name], f"{where}.{f.name}")
    return cls(**values)


@dataclasses.dataclass
class Transferred:
    """What came back: the diff, its reading, the files left out per comparison, and the
    moved kernel families (None with ``families_note`` saying why, or None and no note
    when the wheels carry no GPU code)."""

    report: DiffReport
    reading: ContentReading
    omitted: list[int]
    families: KernelFamilies | None
    families_note: str | None


def _families(data: Mapping[str, object]) -> tuple[KernelFamilies | None, str | None]:
    if "families" not in data or "families_note" not in data:
        raise TransferError("families: missing")
    raw = data["families"]
    families = None if raw is None else _object(KernelFamilies, raw, "families")
    note = _value(str | None, data["families_note"], "families_note")
    if families is not None:
        rows = [*families.grown, *families.shrunk]
        if len(families.grown) > _ROWS or len(families.shrunk) > _ROWS:
            raise TransferError("families: too many rows")
        for i, f in enumerate(rows):
            numbers = (f.old_bytes, f.new_bytes, f.old_count, f.new_count, f.added, f.removed)
            if min(numbers) < 0:
                raise TransferError(f"families[{i}]: negative count")
            if len(f.name) > _TEXT or len(f.archs) > _ROWS:
                raise TransferError(f"families[{i}]: too long")
        if any(f.delta <= 0 for f in families.grown) or any(f.delta >= 0 for f in families.shrunk):
            raise TransferError("families: a row in the wrong direction")
        if min(families.more_grown, families.more_shrunk) < 0:
            raise TransferError("families: negative count")
        if families.more_grown_bytes < 0 or families.more_shrunk_bytes > 0:
            raise TransferError("families: the rest in the wrong direction")
        if note is not None:
            raise TransferError("families: both a result and a note")
    return families, note


def decode_result(data: object) -> Transferred:
    """Everything :func:`encode_result` (and the worker's families) gave; TransferError if
    the data does not have that shape."""
    if not isinstance(data, dict):
        raise TransferError("result: not an object")
    report = DiffReport(
        unpaired_old=_value(list[str], data.get("unpaired_old"), "unpaired_old"),
        unpaired_new=_value(list[str], data.get("unpaired_new"), "unpaired_new"),
        problems=_value(list[str], data.get("problems"), "problems"),
    )
    omitted = []
    comparisons = data.get("comparisons")
    if not isinstance(comparisons, list):
        raise TransferError("comparisons: not a list")
    for i, item in enumerate(comparisons):
        if not isinstance(item, dict):
            raise TransferError(f"comparisons[{i}]: not an object")
        report.comparisons.append(_object(WheelDiff, item.get("diff"), f"comparisons[{i}]"))
        omitted.append(_value(int, item.get("files_omitted"), f"comparisons[{i}].files_omitted"))
    reading = _object(ContentReading, data.get("reading"), "reading")
    families, note = _families(data)
    return Transferred(report, reading, omitted, families, note)
