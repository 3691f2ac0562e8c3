"""The small typed interfaces the library needs from GitHub, and nothing of PyGithub.

Every job (collection and the nightly, regression issues, evidence, the pull-request check,
the split comment, the audit of a run's artifacts, the bisection's builds) depends on these
protocols and plain dataclasses, each on the small ones it uses; :mod:`wheel_size.github.port`
implements them with PyGithub (the only place PyGithub is imported), composed only by
``cli/`` and ``action/``, and ``tests/fakegithub/memory.py`` implements them in memory. Every method
raises :class:`GitHubFailure` (one line, with GitHub's status) when GitHub or the network
fails; callers word it with :meth:`GitHubFailure.saying` or :func:`worded`.
"""

from wheel_size.ports.failure import GitHubFailure, worded
from wheel_size.ports.hub import (
    ArtifactDownloads,
    ArtifactRanges,
    ArtifactTooLarge,
    ArtifactUnavailable,
    CheckPort,
    CommentView,
    CommitAncestry,
    Commits,
    CommitSummary,
    Comparison,
    GitHubPort,
    Issues,
    IssueView,
    PullRequestsOf,
    Repositories,
    Repository,
    RunArtifact,
    RunJobs,
    RunPage,
    WorkflowRuns,
)
from wheel_size.ports.identity import ACTIONS_BOT, bot_of, check_author, check_login

__all__ = [
    "ACTIONS_BOT",
    "ArtifactDownloads",
    "ArtifactRanges",
    "ArtifactTooLarge",
    "ArtifactUnavailable",
    "CheckPort",
    "CommentView",
    "CommitAncestry",
    "CommitSummary",
    "Commits",
    "Comparison",
    "GitHubFailure",
    "GitHubPort",
    "IssueView",
    "Issues",
    "PullRequestsOf",
    "Repositories",
    "Repository",
    "RunArtifact",
    "RunJobs",
    "RunPage",
    "WorkflowRuns",
    "bot_of",
    "check_author",
    "check_login",
    "worded",
]
