"""One marker vocabulary (issue 33 item 3): one hidden-marker prefix, written everywhere and
spelled only in :mod:`wheel_size.markers`; the prefix an older release wrote on sticky
comments and silence issues is still read, never written."""

from __future__ import annotations

from conftest import SRC
from wheel_size import markers
from wheel_size.regressions.issues.body import MARKER_PREFIX
from wheel_size.regressions.issues.silence import issue_marker


def test_one_prefix_is_written_and_the_old_one_only_read() -> None:
    # Regression issues in users' repositories carry this prefix: never change it.
    assert markers.PREFIX == "<!-- wheel-size-action:"
    assert MARKER_PREFIX is markers.PREFIX
    assert markers.comment_marker("split") == "<!-- wheel-size-action:split -->"
    assert issue_marker("cuda12_8") == "<!-- wheel-size-action:silence variant=cuda12_8 -->"
    assert markers.spellings(markers.comment_marker("split")) == (
        "<!-- wheel-size-action:split -->",
        "<!-- wheel-size:split -->",  # how releases before the one prefix wrote it
    )


def test_render_and_parse_round_trip() -> None:
    line = markers.regression_marker("event=jump/cuda12_8/2026-10-21")
    assert markers.payload(line) == "event=jump/cuda12_8/2026-10-21"
    assert markers.payload("  " + markers.comment_marker("k") + " ") == "k"
    assert markers.payload("<!-- wheel-size:k -->") is None  # the old prefix is not parsed
    assert markers.payload("<!-- wheel-size-action:event=x") is None  # unclosed


def test_no_other_module_spells_a_marker_prefix() -> None:
    offenders = [
        str(path.relative_to(SRC))
        for path in sorted((SRC / "wheel_size").rglob("*.py"))
        if path.name != "markers.py" and "<!-- wheel-size" in path.read_text(encoding="utf-8")
    ]
    assert not offenders, f"marker prefixes spelled outside wheel_size/markers.py: {offenders}"


def test_issue_markers_keep_their_released_bytes() -> None:
    import datetime as dt

    from wheel_size.regressions.issues.body import update_marker
    from wheel_size.regressions.issues.parts import parts_marker

    night = dt.date(2026, 10, 21)
    assert update_marker("jump/cuda12_8/2026-10-20", night, "open", 5) == (
        "<!-- wheel-size-action:update=jump/cuda12_8/2026-10-20 night=2026-10-21 state=open "
        "size=5 -->"
    )
    assert parts_marker("jump/cpu/2026-10-20", {"lib/a.so": 1024, "bad path": 1}) == (
        "<!-- wheel-size-action:parts=jump/cpu/2026-10-20 lib/a.so=+1024 -->"
    )
