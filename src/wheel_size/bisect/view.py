"""The bisection as Markdown: the follow-up comment on the event's issue and the CLI's
``--format markdown``, from ``templates/bisect.md.j2``."""

from __future__ import annotations

from wheel_size.bisect.document import BisectDocument
from wheel_size.render.templates import render
from wheel_size.sticky import marker

__all__ = ["comment_key", "render_markdown"]


def comment_key(doc: BisectDocument) -> str:
    """One follow-up per event and variant, edited as the bisection goes on."""
    return f"bisect/{doc['variant']}/{doc['date']}"


def render_markdown(doc: BisectDocument, *, repo_url: str) -> str:
    return (
        render(
            "bisect.md.j2", doc=doc, repo_url=repo_url.rstrip("/"), marker=marker(comment_key(doc))
        ).strip()
        + "\n"
    )
