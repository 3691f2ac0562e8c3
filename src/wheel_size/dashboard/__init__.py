"""The history dashboard: a self-contained HTML page with one SVG chart per variant."""

from wheel_size.dashboard.page import (
    issue_links_from_json,
    render_dashboard,
    reports_from_json,
    write_dashboard,
)

__all__ = ["issue_links_from_json", "render_dashboard", "reports_from_json", "write_dashboard"]
