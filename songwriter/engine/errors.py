"""Errors the engine raises; the UI and the CLI show their messages as they are."""


class GenerationError(ValueError):
    """A request that cannot be met; the message names the line, slot and constraint."""


class GenerationCancelled(RuntimeError):
    """The caller's cancel event was set while decoding."""


class ModelLoadError(RuntimeError):
    """A model directory that is missing, corrupt or does not match its config/vocabulary."""
