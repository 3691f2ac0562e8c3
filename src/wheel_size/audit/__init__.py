"""Audit the set of wheels a build matrix produced: what each holds, which are redundant."""
