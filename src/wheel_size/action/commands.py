"""GitHub Actions workflow commands and environment files, written the way the runner reads them."""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from pathlib import Path
from typing import TextIO

__all__ = [
    "STEP_SUMMARY_LIMIT",
    "add_mask",
    "escape_data",
    "escape_property",
    "workflow_command",
    "write_outputs",
    "write_step_summary",
]

# GitHub refuses step summaries over 1 MiB; stay clearly below it.
STEP_SUMMARY_LIMIT = 1024 * 1024 - 16 * 1024


def escape_data(text: str) -> str:
    """A message that stays one command line (the toolkit's escaping)."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def workflow_command(
    stream: TextIO, name: str, message: str, properties: Mapping[str, str] | None = None
) -> None:
    props = ",".join(f"{k}={escape_property(v)}" for k, v in (properties or {}).items())
    stream.write(f"::{name}{' ' + props if props else ''}::{escape_data(message)}\n")
    stream.flush()


def add_mask(stream: TextIO, secret: str) -> None:
    """Register a secret before anything could print it."""
    if secret:
        stream.write(f"::add-mask::{escape_data(secret)}\n")
        stream.flush()


def write_outputs(path: str | None, outputs: Mapping[str, str]) -> None:
    """Append ``name<<DELIM`` blocks to $GITHUB_OUTPUT; the delimiter is random so no value
    can end the block early."""
    if not path:
        return
    with Path(path).open("a", encoding="utf-8") as fh:
        for name, value in outputs.items():
            delimiter = f"ghadelimiter_{secrets.token_hex(16)}"
            while delimiter in value:
                delimiter = f"ghadelimiter_{secrets.token_hex(16)}"
            fh.write(f"{name}<<{delimiter}\n{value}\n{delimiter}\n")


def write_step_summary(path: str | None, markdown: str, note: str) -> bool:
    """Append the report to $GITHUB_STEP_SUMMARY, cut at a line under the 1 MiB limit
    (then ``note`` says where the whole report is). Returns whether it was cut."""
    if not path:
        return False
    data = markdown.encode()
    cut = len(data) > STEP_SUMMARY_LIMIT
    if cut:
        room = STEP_SUMMARY_LIMIT - len(note.encode()) - 2
        head = data[:room]
        head = head[: head.rfind(b"\n") + 1] if b"\n" in head else head
        data = head + b"\n" + note.encode()
    with Path(path).open("ab") as fh:
        fh.write(data)
    return cut
