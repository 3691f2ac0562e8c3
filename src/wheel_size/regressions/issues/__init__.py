"""The issue stream: body, one issue per event, the causal lifecycle, notes, the alert step."""
