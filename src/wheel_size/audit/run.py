"""Collect the wheels given on the command line (files, directories, artifact zips); audit them."""

from __future__ import annotations

import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path

from wheel_size.audit.inspect import WheelInfo, inspect_wheel
from wheel_size.audit.matrix import AuditReport, audit_matrix
from wheel_size.audit.native import ArchScanner
from wheel_size.diff.inputs import WheelInput, resolve_input
from wheel_size.errors import InputError, WheelSizeError

__all__ = ["audit_paths", "collect_wheels"]


def collect_wheels(
    paths: Sequence[Path], workdir: Path
) -> tuple[list[WheelInput], list[tuple[str, str]]]:
    """Every wheel under ``paths``; a directory is searched recursively (one folder per job)."""
    found: list[WheelInput] = []
    problems: list[tuple[str, str]] = []
    for path in paths:
        if path.is_dir():
            wheels = sorted(path.rglob("*.whl"))
            zips = sorted(path.rglob("*.zip"))
            found += [WheelInput(str(w), w) for w in wheels]
            for archive in zips:
                try:
                    found += resolve_input(archive, workdir)
                except WheelSizeError as exc:
                    problems.append((str(archive), str(exc)))
            if not wheels and not zips:
                problems.append((str(path), f"{path}: no *.whl files in this directory"))
            continue
        try:
            found += resolve_input(path, workdir)
        except WheelSizeError as exc:
            problems.append((str(path), str(exc)))
    return found, problems


def audit_paths(
    paths: Sequence[Path],
    *,
    display: Mapping[Path, str] | None = None,
    trust_record: bool = False,
    scanners: tuple[ArchScanner, ...] = (),
) -> AuditReport:
    """Audit every wheel found; raises :class:`InputError` when not one could be read.

    ``display`` names some paths differently in the report (a downloaded artifact by its name).
    """
    with tempfile.TemporaryDirectory(prefix="wheel-size-audit-") as tmp:
        inputs, unreadable = collect_wheels(paths, Path(tmp))
        for path, name in (display or {}).items():
            prefix = str(path)
            inputs = [
                WheelInput(name + i.label[len(prefix) :], i.path)
                if i.label.startswith(prefix)
                else i
                for i in inputs
            ]
        infos: list[WheelInfo] = []
        for item in inputs:
            try:
                infos.append(
                    inspect_wheel(
                        item.path,
                        item.label,
                        filename=item.filename,
                        trust_record=trust_record,
                        scanners=scanners,
                    )
                )
            except WheelSizeError as exc:
                unreadable.append((item.label, str(exc)))
    if not infos:
        detail = "; ".join(message for _, message in unreadable) or "no wheels given"
        raise InputError(f"nothing to audit: {detail}")
    return audit_matrix(infos, unreadable)
