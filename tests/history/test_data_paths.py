"""Everything a run writes to the data branch lies inside the sparse checkout's paths.

The data branch is checked out sparsely (history/gitstore.DATA_PATHS): a folder a writer
adds but the list forgets is never checked out, so its files read as missing on the next
run (a bisection that restarts, resolved downloads that vanish).
"""

from __future__ import annotations

import datetime as dt

from wheel_size.bisect.keep import STORE_DIR
from wheel_size.deps.nightly import stored_path
from wheel_size.history.gitstore import _in_data_paths


def test_the_bisections_folder_is_checked_out() -> None:
    assert _in_data_paths(f"{STORE_DIR}/cuda12_8/2025-10-11.json")


def test_the_resolved_downloads_are_checked_out() -> None:
    assert _in_data_paths(stored_path("cuda12_8", dt.date(2025, 10, 11)))


def test_stray_files_are_not() -> None:
    assert not _in_data_paths("junk/file.bin")
