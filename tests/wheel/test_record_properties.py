"""Property tests for RECORD: what we write parses back, and no text crashes the parser."""

from __future__ import annotations

import hashlib

from hypothesis import given, settings
from hypothesis import strategies as st

from wheel_size.errors import InvalidWheel
from wheel_size.wheel.record import (
    RecordEntry,
    StreamingHash,
    encode_digest,
    format_record,
    hash_bytes,
    parse_record,
)

# Paths as wheels hold them: any text without NUL or line breaks (csv quotes the rest).
paths = st.text(
    st.characters(blacklist_categories=["Cs"], blacklist_characters="\x00\r\n"), min_size=1
)
entries = st.builds(
    RecordEntry,
    paths,
    st.one_of(st.none(), st.binary(max_size=64).map(hash_bytes)),
    st.one_of(st.none(), st.integers(0, 1 << 62)),
)


@settings(max_examples=300)
@given(st.lists(entries, max_size=20))
def test_format_then_parse_is_identity(rows: list[RecordEntry]) -> None:
    assert parse_record(format_record(rows)) == rows


@settings(max_examples=300)
@given(st.text(max_size=400))
def test_any_text_parses_or_fails_with_one_line(text: str) -> None:
    try:
        rows = parse_record(text, source="x.dist-info/RECORD")
    except InvalidWheel as exc:
        assert "\n" not in str(exc) and str(exc).startswith("x.dist-info/RECORD")
    else:
        assert all(r.path and (r.size is None or r.size >= 0) for r in rows)


@given(st.lists(st.binary(max_size=300), max_size=6))
def test_streaming_hash_equals_one_shot(chunks: list[bytes]) -> None:
    streaming = StreamingHash()
    for chunk in chunks:
        streaming.update(chunk)
    whole = b"".join(chunks)
    assert streaming.value == hash_bytes(whole)
    assert streaming.size == len(whole)
    assert "=" not in streaming.value.split("=", 1)[1]
    assert encode_digest(hashlib.sha256(whole).digest()) == streaming.value[len("sha256=") :]
