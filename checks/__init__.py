"""Constraint checks and alerts over compiled typed state (issue 5)."""
