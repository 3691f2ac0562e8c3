"""Installed size: the sum of the uncompressed sizes of a wheel's members, read from its
central directory (inside an artifact zip, through ranged reads when it is remote)."""

from wheel_size.installed.directory import DirectoryMember, read_directory
from wheel_size.installed.measure import InstalledSize, installed_size
from wheel_size.installed.ranges import BytesRanges, FileRanges, RangeSource

__all__ = [
    "BytesRanges",
    "DirectoryMember",
    "FileRanges",
    "InstalledSize",
    "RangeSource",
    "installed_size",
    "read_directory",
]
