"""The inputs of the four actions, each declared once (issue 33 item 4)."""
