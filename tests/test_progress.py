from __future__ import annotations

import io

from wheel_size.progress import Progress


class _Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_ci_log_prints_at_most_once_per_interval() -> None:
    out, clock = io.StringIO(), _Clock()
    with Progress("backfill", total=100, stream=out, interval=10, clock=clock) as bar:
        for _ in range(100):
            clock.now += 0.5
            bar.advance()
    lines = out.getvalue().splitlines()
    assert lines[0] == "backfill: 1 items of 100 items (1%)"
    assert len(lines) == 5 + 1  # t = 0.5, 10.5, 20.5, 30.5, 40.5, then the closing line
    assert lines[-1] == "backfill: 100 items done in 50.0s"


def test_terminal_redraws_in_place_and_formats_bytes() -> None:
    out, clock = io.StringIO(), _Clock()
    bar = Progress(
        "download", total=4 << 20, unit="bytes", stream=out, clock=clock, interactive=True
    )
    bar.advance(2 << 20)
    bar.finish()
    text = out.getvalue()
    assert "download: 2.0 MB of 4.0 MB (50%)\r" in text
    assert text.endswith("download: 2.0 MB done in 0.0s\n")


def test_failure_is_reported() -> None:
    out = io.StringIO()
    try:
        with Progress("split", stream=out, interactive=False):
            raise RuntimeError("boom")
    except RuntimeError:
        pass
    assert "split: 0 items failed after" in out.getvalue()
