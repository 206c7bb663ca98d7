"""Checkpoint compiler: folds the fact log into generated, typed Python modules."""
