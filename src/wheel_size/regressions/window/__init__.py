"""The candidates of a night: the commits between two nightlies and what they say."""
