"""What agents and operators talk to: the `Memory` facade and the `uac` command."""

from runtime.memory import ImportResult, Learned, Memory

__all__ = ["ImportResult", "Learned", "Memory"]
