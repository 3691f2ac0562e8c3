"""Command-line adapters: argv in, library calls, exit status out."""
