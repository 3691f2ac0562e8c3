"""Regression issues: from a size jump to the commits that could have caused it.

Grouped by what the code is about, lowest first (a subpackage imports only those before it):

- ``document``: the investigation document's typed dictionaries (what crosses modules);
- ``window/``: the candidates — nightly messages, the commits between two nightlies
  (``compare``), their changed files and what their words and patches say
  (``commits``, ``text_signals``), revert pairs that cancel out (``reverts``);
- ``ranking/``: the evidence and the order — the night's fingerprint, what each commit can
  reach (``reach`` over the data table ``reach_table.yaml``), the wheel contents, the
  categories, the status words (``evidence``) and the ranking (``rank``);
- ``events`` (what counts as an event) and ``investigation`` (one event put together);
- ``builds/``: per-commit builds (Method A) — sizes from artifacts and build logs, and the
  statuses and re-ranking they give;
- ``issues/``: the issue stream — body, one issue per event (``sync``), the causal lifecycle,
  notes for the report, the nightly alerting step and its options.
"""
