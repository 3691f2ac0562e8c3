"""GitHub access through PyGithub: the client with write-safe retries, one-line errors,
and exactly-once creation for writes whose answer may be lost."""

from wheel_size.github.client import (
    DEFAULT_API_URL,
    GITHUB_FAILURES,
    GitHubRetry,
    RetryPolicy,
    connect,
    create_once,
    github_error,
    github_errors,
    may_have_been_stored,
    scrub,
)

__all__ = [
    "DEFAULT_API_URL",
    "GITHUB_FAILURES",
    "GitHubRetry",
    "RetryPolicy",
    "connect",
    "create_once",
    "github_error",
    "github_errors",
    "may_have_been_stored",
    "scrub",
]
