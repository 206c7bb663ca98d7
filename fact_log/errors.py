"""Errors that reach a user: each carries one clear sentence naming the bad input.

No dead ends: when there is a next step (create the workspace, compile, list the ids, get
a key), the sentence names the command that takes it, e.g. "no uac workspace at D; create
one with: uac --home D init".
"""


class UacError(Exception):
    """Base class for every error uac reports to a user instead of a traceback."""


class InputError(UacError):
    """Bad input from a user or a file; nothing was written."""


class WorkspaceError(UacError):
    """The workspace is missing, unwritable, locked or from an incompatible version."""


class WorkspaceInUse(WorkspaceError):
    """Another process holds the workspace; `holder` describes it (pid and command line)."""

    def __init__(self, message: str, holder: str) -> None:
        super().__init__(message)
        self.holder = holder


class NotFound(UacError):
    """A named subject, fact or path does not exist."""


class LogIntegrityError(WorkspaceError):
    """The part of the log an operation was about to use does not verify (forged or cut)."""
