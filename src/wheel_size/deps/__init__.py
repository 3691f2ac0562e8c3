"""The whole download: every file ``pip install`` would fetch for a wheel, on a platform."""
