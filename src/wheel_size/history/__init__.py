"""The size history: records, the two stores, and loading a stretch of it.

Public API (used by the report, the dashboard and the regression issues)::

    store = DirectoryStore(".wheel-size")            # or GitBranchStore(remote, branch)
    store.write_runs(runs)                           # idempotent, atomic
    history = load_history(store, since, until)      # -> History
    history.pick("manywheel-py3_12-cuda12_8")        # date -> Sighting(artifact, run)
"""

from wheel_size.history.bundle import read_bundle, write_bundle
from wheel_size.history.gitstore import DEFAULT_DATA_BRANCH, GitBranchStore, actions_remote
from wheel_size.history.history import History, Sighting, load_history
from wheel_size.history.model import ArtifactRecord, RunRecord, parse_base_sha
from wheel_size.history.store import DirectoryStore, HistoryStore, WriteResult

__all__ = [
    "DEFAULT_DATA_BRANCH",
    "ArtifactRecord",
    "DirectoryStore",
    "GitBranchStore",
    "History",
    "HistoryStore",
    "RunRecord",
    "Sighting",
    "WriteResult",
    "actions_remote",
    "load_history",
    "parse_base_sha",
    "read_bundle",
    "write_bundle",
]
