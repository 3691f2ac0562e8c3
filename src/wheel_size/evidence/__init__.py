"""Evidence for regression issues: the two nights' wheels, downloaded and diffed."""
