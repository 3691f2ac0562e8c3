"""The native-binaries floor: what one native file of a wheel is and holds.

Both ``wheel-size diff`` and ``wheel-size audit`` stand on this package and on nothing of
each other: the format told by magic bytes (:mod:`.formats`), and per ELF library its
sections, dynamic tables (DT_NEEDED, GLIBC version needs, symbols) and GPU code per
architecture (CUDA fatbin entries, HIP offload-bundle targets) in :mod:`.library`, read
once through the validated ELF reader (:mod:`wheel_size.rocm.elf_file`) and the ``cuda/``
and ``rocm/`` parsers. Facts carry data and reasons; the reports phrase them.
"""

from wheel_size.native.formats import ELF_MAGIC, native_format
from wheel_size.native.gpu import GpuKey, GpuTotals
from wheel_size.native.library import LibraryFacts, read_library_facts

__all__ = [
    "ELF_MAGIC",
    "GpuKey",
    "GpuTotals",
    "LibraryFacts",
    "native_format",
    "read_library_facts",
]
