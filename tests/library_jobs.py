"""One library of a fixture wheel as the split's library wave takes it (``split.work``)."""

from __future__ import annotations

from pathlib import Path

from wheel_size.split.work import LibraryJob
from wheel_size.wheel.archive import open_source


def member_job(wheel: Path, member: str, rel: str, work: Path) -> LibraryJob:
    """The job for ``member`` of ``wheel`` (``rel`` under the overlay root), deflated at
    zlib 6 with zstd 3 frames, its scratch in the new folder ``work``."""
    work.mkdir()
    return LibraryJob(
        number=0,
        source=f"{wheel}:{member}",
        rel=rel,
        raw=open_source(wheel).member(member).raw,
        file=None,
        work=work,
        search_paths=("../.kpack/torch_@GFXARCH@.kpack",),
        deflate=True,
        deflate_level=6,
        zstd_level=3,
    )
