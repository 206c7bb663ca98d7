"""Runnable examples of uac: `demo` is what `uac demo` runs."""
