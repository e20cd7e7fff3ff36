"""The desktop app (PySide6): views, actions, workers. Calls the engine facade, never the model."""

from songwriter.export.qtcompat import guard_none_refcount

guard_none_refcount()
