"""Wheel primitives shared by split, diff and audit: file names and RECORD."""
