"""The nightly action's inputs (``uses: OWNER/wheel-size-action@v1``, the root ``action.yml``).

One entry per input, in the order ``action.yml`` lists them: ``action.yml``, the catalog,
the parser's defaults and the README tables come from here (``scripts/gen_action_docs.py``).
"""

from __future__ import annotations

from wheel_size.action.inputs import (
    FLAG,
    INTEGER,
    ITEMS,
    MEGABYTES,
    NUMBER,
    TEXT,
    ActionSpec,
    Choice,
    Input,
    Integer,
    Number,
)
from wheel_size.action.tables import common

__all__ = ["TRACK"]

# fmt: off
TRACK = ActionSpec(
    "track", "", "nightly action",
    (
        Input("github-token", TEXT, "${{ github.token }}",
              "Token with `actions: read` (to list runs and artifacts) and `contents: write` (to "
              "push the data branch)."),
        Input("workflow", TEXT, "",
              "The nightly build workflow whose artifacts are measured, as a numeric id "
              "(21257348) or file name (nightly.yml). Required."),
        Input("repository", TEXT, "${{ github.repository }}",
              "Repository whose runs are read, OWNER/NAME. The data branch is always written to "
              "the repository running this workflow."),
        Input("branch", TEXT, "nightly",
              "Branch the nightly runs are built from; empty for any branch.", empty_is_value=True),
        Input("run-events", TEXT, "schedule, workflow_dispatch, push",
              "Comma-separated events a nightly run is triggered by (\"*\" for any). Runs of "
              "other events, and runs built from another repository (a fork's pull request on"
              " a branch named like the nightly one), are never stored; they are named in the"
              " log and counted in the summary."),
        Input("variants", ITEMS, "cuda12_8",
              "Comma-separated variants to report and watch (cpu, xpu, cuda12_8, cu128, \"CUDA "
              "12.8\", rocm6.4, …). Every artifact is stored regardless."),
        common.PYTHON,
        common.ARTIFACT_PATTERN,
        Input("threshold-mb", MEGABYTES, "1",
              "A day-over-day change of at least this many MB (1,048,576 bytes) is a jump; 0 "
              "turns it off."),
        Input("threshold-pct", NUMBER, "",
              "A day-over-day change of at least this percent is a jump too; empty turns it off."),
        Input("baseline", TEXT, "previous",
              "What a night is measured against: previous (the previous night, the default), "
              "median:N (the median of the N nights before it) or window:N (the mean of the last "
              "N nights against the N before); with a median or a window a change that keeps "
              "crossing is one jump, shown with its noise band."),
        Input("rollback-days", Integer(minimum=1), "10",
              "A jump undone within this many days is reported as a rollback."),
        Input("report-days", Integer(minimum=1), "30",
              "Without a date range, the report covers this many days up to the newest night."),
        Input("date", TEXT, "",
              "Collect only this night (YYYY-MM-DD). Default: every night since the last stored "
              "one."),
        Input("from", TEXT, "",
              "Backfill from this day (YYYY-MM-DD); expired artifacts still have their size."),
        Input("to", TEXT, "",
              "Last day of the backfill (YYYY-MM-DD); default today."),
        Input("months", ITEMS, "",
              "Comma-separated months to backfill and report, e.g. \"October 2025, November "
              "2025\"."),
        Input("data-branch", TEXT, "wheel-size-data",
              "Branch of this repository that holds the history (created as an orphan branch when"
              " missing)."),
        common.DATA_REMOTE,
        Input("git-timeout", Number("seconds"), "",
              "Seconds each git fetch or push of the data branch may take before it is stopped (a"
              " stalled remote fails the step instead of holding the job); default 120, or "
              "$WHEEL_SIZE_GIT_TIMEOUT."),
        Input("history-dir", TEXT, "",
              "Keep the history in this workspace directory instead of a data branch (e.g. with "
              "actions/cache)."),
        Input("dashboard", FLAG, "false",
              "Also write index.html (charts of every watched variant) to the data branch, for "
              "GitHub Pages."),
        Input("dashboard-days", Integer(minimum=1), "365",
              "Days of history the dashboard's charts show, up to the newest night."),
        Input("build-time", FLAG, "false",
              "Also track build time: list each new run's jobs (one more request a run, paged at "
              "100 jobs) and store the jobs that built the artifacts; the report, dashboard and "
              "summary then show build minutes."),
        Input("job-pattern", TEXT, "manywheel-{python}-{variant}-build",
              "Name of the job that builds an artifact, with the artifact pattern's {python} and "
              "{variant} (a reusable workflow's \"NAME / build\" matches NAME)."),
        Input("build-threshold-min", Number("minutes"), "15",
              "A build-time change of at least this many minutes beyond the noise band of the "
              "baseline (the median of 7 nights, or `baseline`) is a build-time jump (reported, "
              "never opened as an issue); 0 turns it off."),
        Input("build-threshold-pct", NUMBER, "25",
              "A build-time change of at least this percent is a build-time jump too; 0 turns it "
              "off."),
        Input("installed-size", FLAG, "false",
              "Also store each new artifact's installed size (its wheel's files unpacked), read "
              "from the wheel's central directory by ranged requests; the report, dashboard and "
              "check then show it beside the download size."),
        Input("forecast", INTEGER, "0",
              "Add a forecast to the report and dashboard: the size trend (Theil-Sen) over this "
              "many nights and the date each size limit (ceiling-mb, ceilings, pypi-limit-mb) "
              "would be crossed; 0 turns it off."),
        Input("deps", FLAG, "false",
              "Also resolve each new night's watched wheels with their dependencies (pip install "
              "--dry-run --report for the wheel's platform; one artifact download each), store "
              "the sets under deps/ and name the dependency pins that moved the whole download."),
        Input("deps-index-url", TEXT, "",
              "The simple index pip resolves the dependencies against (with deps). Empty: "
              "https://pypi.org/simple."),
        Input("records", TEXT, "",
              "Record files from `wheel-size collect --out` (parallel backfill jobs) to store in "
              "the same commit: paths or glob patterns relative to the workspace, separated by "
              "spaces or newlines."),
        Input("fail-on-regression", FLAG, "false",
              "Fail the step when a night grew past a threshold, or a watched variant is over a "
              "size limit without ceiling-ack (the report and outputs are written first)."),
        Input("create-issues", FLAG, "false",
              "Open one GitHub issue per size jump (and slow creep) of a watched variant, with "
              "the candidate commits, and keep it up to date. The job needs the permission "
              "issues: write."),
        Input("issue-labels", TEXT, "wheel-size-regression",
              "Comma-separated labels of the regression issues; the first one identifies them."),
        Input("accepted-label", TEXT, "size-accepted",
              "Label that accepts an intended increase; its issue gets no further updates."),
        Input("bot-login", TEXT, "",
              "The login the regression issues and comments are written by: markers, states and "
              "sticky comments count only from it, anyone else's are ignored and named in the "
              "log. Default: the login the token writes as (a personal token's user; an App "
              "token's APP-SLUG[bot]; github-actions[bot] for GITHUB_TOKEN); [bot] may be left "
              "out; a login the token does not write as is one error."),
        Input("close-on-rollback", FLAG, "false",
              "Close a regression issue when the size rolls back through a revert of a listed "
              "candidate (otherwise comment only; a return that no revert explains is \"offset\", "
              "never closed)."),
        Input("drop-issues", FLAG, "false",
              "With create-issues, open an issue for a size drop that crosses the threshold too "
              "(drops are always explained by the report and investigate)."),
        Input("cc-culprit", FLAG, "false",
              "With create-issues, mention the author of a CONFIRMED culprit in the issue "
              "(otherwise every mention is neutralised)."),
        Input("creep-mb", MEGABYTES, "5",
              "Open an issue for growth of at least this many MB over creep-days that no single "
              "night crossed the threshold with (0 turns it off)."),
        Input("creep-days", INTEGER, "14",
              "The creep window in days."),
        Input("silence-nights", INTEGER, "2",
              "A watched variant without a wheel this many nights in a row (runs that finished "
              "without it, failed, or built it under a new name) gets one issue, updated while it"
              " lasts and closed when it is back; one silent night is a warning only; 0 turns the"
              " issues off."),
        Input("evidence", FLAG, "true",
              "With create-issues, download the two nights' artifacts and put the diff of their "
              "wheels (files, ELF sections, GPU architectures) into the issue."),
        Input("evidence-max-download-mb", INTEGER, "4096",
              "Skip the evidence when an artifact is larger than this many MB (0 means no limit);"
              " protects small runners."),
        Input("evidence-memory-mb", INTEGER, "2048",
              "Memory (address space, MB) the diff of the two artifacts may use; past it, e.g. on"
              " a zip bomb, the issue says evidence unavailable (0 means no limit)."),
        Input("evidence-time-budget", INTEGER, "1200",
              "Seconds all evidence of one run may take, downloads included; past it the "
              "remaining issues say evidence unavailable (0 means no limit)."),
        Input("build-evidence", FLAG, "true",
              "With create-issues, read every build in the night's window (the build workflow's "
              "runs over the window's dates, their artifact sizes, expired ones too; the build "
              "job's log only where no artifact), bracket the step between the last build at the "
              "old size and the first at the new, and mark each candidate from the builds around "
              "it: CONFIRMED, NOT CONFIRMED or CLEARED, naming the builds; the code's status "
              "otherwise, with the reason. Wants `actions: read`."),
        Input("build-evidence-workflows", TEXT, "",
              "Comma-separated build workflows: a file name (e.g. "
              "generated-linux-binary-manywheel-nightly.yml) or id is listed by itself, the "
              "cheapest and surest; other entries are patterns (fnmatch) of workflow, check-run "
              "and job names whose builds count. Empty means any run."),
        Input("build-evidence-job-pattern", TEXT, "",
              "Name pattern (fnmatch, with {variant} and {python}) of the job that builds a "
              "variant's wheel, whose log is read; test jobs that merely name the variant are "
              "never read. Empty: PyTorch's manywheel-{python}-{variant}-build."),
        Input("build-evidence-log-pattern", TEXT, "",
              "Regex for the log line that prints the wheel size, with a (?P<size>...) group and "
              "optional unit, file and artifact groups; empty uses the defaults (upload-artifact,"
              " pip wheel, ls -l, du -h, \"Wheel size: N MB\")."),
        Input("log-url-template", TEXT, "",
              "Read job logs from this mirror instead of the GitHub API, e.g. "
              "https://ossci-raw-job-status.s3.amazonaws.com/log/{job_id} ({job_id}, {run_id}, "
              "{repo}); no token is sent to it."),
        Input("commit-url-template", TEXT, "",
              "Link every candidate commit to this page, e.g. "
              "https://hud.pytorch.org/pytorch/pytorch/commit/{sha}."),
        Input("reach-table", TEXT, "",
              "YAML file in the workspace overriding keys of the reach table (which variants and "
              "libraries a changed path can move, used to rank candidates; docs/regressions.md). "
              "Empty: the packaged table, correct for PyTorch."),
        Input("report-path", TEXT, "wheel-size-report.md",
              "Where to write the Markdown report, relative to the workspace or absolute (a .json"
              " with the jumps is written next to it)."),
        common.CEILING_MB,
        common.CEILINGS,
        common.PYPI_LIMIT_MB,
        Input("ceiling-ack", TEXT, "",
              "Accept a known breach of ceiling-mb / ceilings / pypi-limit-mb for this reason "
              "(e.g. a repository variable): a notice instead of an error, and fail-on-regression"
              " ignores it."),
        Input("bisect-build-workflow", TEXT, "",
              "Bisect each jump with builds (docs/bisect.md): the workflow (file or id) that "
              "builds one commit. Empty: no bisection. Needs one of bisect-dispatch-input or "
              "bisect-tag-pattern."),
        Input("bisect-dispatch-input", TEXT, "",
              "Start builds by workflow_dispatch of bisect-build-workflow with the commit in this"
              " input; the workflow needs `run-name:` carrying it where the server returns no run"
              " id. Wants `actions: write`."),
        Input("bisect-dispatch-ref", TEXT, "",
              "The branch to dispatch the build workflow on. Empty: the repository's default "
              "branch."),
        Input("bisect-tag-pattern", TEXT, "",
              "Start builds by pushing a tag named so at the commit, e.g. ciflow/binaries/{sha}; "
              "deleted once its build ended. Wants `contents: write` and a PAT or GitHub App "
              "token: a tag pushed with GITHUB_TOKEN starts no run."),
        Input("bisect-builds-per-round", INTEGER, "3",
              "Builds splitting each step per round (K): a window of N commits takes about "
              "log_{K+1} N rounds."),
        Input("bisect-max-builds", INTEGER, "40",
              "Builds one event may use at most."),
        Input("bisect-max-events", Integer(minimum=0), "2",
              "New bisections one run starts at most, the newest jumps first (a backfill finds "
              "many); the others are named in the log. Pending ones always go on."),
        Input("bisect-state", TEXT, "",
              "Where each event's bisection is kept for the next nightly to resume. Empty: beside"
              " the history (bisections/<variant>/<date>.json on the data branch, one commit a "
              "run). A directory in the workspace instead (one JSON file per event; keep it "
              "across runs with actions/cache)."),
        Input("bisect-build-timeout", Number("seconds"), "21600",
              "Seconds after which a bisection build still running is cancelled (default 6 h; "
              "raise it for builds that take longer)."),
        Input("bisect-wait", Number("seconds"), "0",
              "Seconds this run waits for builds before leaving the bisection pending for the "
              "next run (0: start builds and go)."),
        Input("bisect-poll-interval", Number("seconds"), "60",
              "Seconds between looks at the builds in flight while waiting."),
        Input("mode", Choice(("track", "split", "audit", "check")), "",
              "Deprecated (removed in v2): split, audit and check are actions of their own, "
              "OWNER/wheel-size-action/split@v1, /audit@v1 and /check@v1, with the same inputs. "
              "`mode: split|audit|check` here stops with one line naming that action (it ran with"
              " this action's defaults, not theirs).",
              deprecation="mode is deprecated and goes away in v2: use "
                          "OWNER/wheel-size-action/split@v1, /audit@v1 or /check@v1 (same inputs)"
                          " instead of mode: split|audit|check."),
    ),
)
# fmt: on
