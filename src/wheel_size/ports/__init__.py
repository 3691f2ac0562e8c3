"""The small typed interfaces the library needs from GitHub, and nothing of PyGithub.

Collection, regression issues, evidence and the dashboard depend on these protocols and
plain dataclasses; :mod:`wheel_size.github.port` implements them with PyGithub (the only
place PyGithub is imported), and a test could implement them with anything. Every method
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
