"""The error paths of commands that work in temporary directories (``diff``, ``audit``, the
audit action).

Their work is unpacked, copied and parsed under ``$TMPDIR``: a cancelled job (SIGTERM) must
still remove it, and a temporary directory that fills up (ENOSPC) or refuses writes is the
documented one line ``<path>: cannot write: <reason>``, exit 2, not an internal error.
"""

from __future__ import annotations

import contextlib
import errno
import tempfile
from collections.abc import Iterator

from wheel_size.errors import OutputError
from wheel_size.history.scratch import sigterm_exits

__all__ = ["temporary_work"]

# What a place we write to answers when it cannot take more (never a reading problem).
_REFUSED = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EROFS})


@contextlib.contextmanager
def temporary_work() -> Iterator[None]:
    """Run a command's body: SIGTERM removes its temporary directories on the way out; a
    write refused by the file system (no space, quota, file size limit, read-only) is one
    OutputError naming the file, or the temporary directory when the system names none."""
    with sigterm_exits():
        try:
            yield
        except OSError as exc:
            if exc.errno not in _REFUSED:
                raise
            reason = exc.strerror or errno.errorcode.get(exc.errno or 0, "refused")
            where = (
                str(exc.filename)
                if exc.filename
                else f"{tempfile.gettempdir()} (the temporary directory, $TMPDIR)"
            )
            raise OutputError(f"{where}: cannot write: {reason}") from None
