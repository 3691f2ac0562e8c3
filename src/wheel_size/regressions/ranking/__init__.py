"""Evidence and ranking: fingerprint, reach (the table is data), contents, statuses, order."""
