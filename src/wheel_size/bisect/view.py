"""The bisection as Markdown: the follow-up comment on the event's issue and the CLI's
``--format markdown``, from ``templates/bisect.md.j2``."""

from __future__ import annotations

from wheel_size.bisect.document import BisectDocument
from wheel_size.markers import comment_marker
from wheel_size.render.templates import render

__all__ = ["comment_key", "render_bisect_markdown", "trigger_text"]


def comment_key(doc: BisectDocument) -> str:
    """One follow-up per event and variant, edited as the bisection goes on."""
    return f"bisect/{doc['variant']}/{doc['date']}"


def trigger_text(key: str) -> str:
    """``dispatch:sha@main`` as a reader says it."""
    kind, _, rest = key.partition(":")
    if kind == "tag":
        return f"a tag {rest}"
    name, _, ref = rest.partition("@")
    where = "the default branch" if ref in ("", "(default branch)") else f"branch {ref}"
    return f"workflow_dispatch on {where} with the commit in input {name}"


def render_bisect_markdown(doc: BisectDocument, *, repo_url: str) -> str:
    text = render(
        "bisect.md.j2",
        doc=doc,
        repo_url=repo_url.rstrip("/"),
        marker=comment_marker(comment_key(doc)),
        trigger=trigger_text(doc["trigger"]),
    )
    return text.strip() + "\n"
