from __future__ import annotations

import base64
import hashlib
import io

import pytest

from wheel_size.errors import InvalidWheel
from wheel_size.wheel.record import (
    RecordEntry,
    StreamingHash,
    format_record,
    hash_bytes,
    parse_record,
)


def test_hash_is_urlsafe_base64_without_padding() -> None:
    data = b"\xfb\xff" * 1000
    expected = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).decode().rstrip("=")
    assert hash_bytes(data) == "sha256=" + expected
    assert "=" not in hash_bytes(data)[len("sha256=") :]


def test_streaming_hash_matches_one_shot() -> None:
    data = bytes(range(256)) * 9000
    streamed = StreamingHash().feed(io.BytesIO(data))
    assert streamed.value == hash_bytes(data)
    assert streamed.size == len(data)


def test_round_trip_with_commas_in_paths() -> None:
    entries = [
        RecordEntry("pkg/a,b.py", hash_bytes(b"x"), 1),
        RecordEntry("pkg-1.0.dist-info/RECORD", None, None),
    ]
    assert parse_record(format_record(entries)) == entries


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("a.py,sha256=x\n", "expected 3 fields"),
        ("a.py,sha256=x,big\n", "not a number"),
        (",sha256=x,1\n", "empty path"),
        ("a.py,deadbeef,1\n", "malformed hash"),
        ("a.py,sha256=x,-1\n", "negative size"),
    ],
)
def test_bad_rows_name_the_file_and_line(text: str, problem: str) -> None:
    with pytest.raises(InvalidWheel, match=rf"^whl/RECORD: line 1: .*{problem}"):
        parse_record(text, source="whl/RECORD")
