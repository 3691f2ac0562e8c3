"""Bisect a size step with builds on GitHub Actions: trigger builds of commits that split
the window (``workflow_dispatch`` or a tag), read their sizes, narrow, repeat.

``search`` is the pure search, ``state`` the resumable record, ``engine`` the rounds over
the small :class:`~wheel_size.ports.trigger.BuildTrigger` port that ``github/dispatch.py``
implements.
"""
