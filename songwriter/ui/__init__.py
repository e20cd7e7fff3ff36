"""The desktop app (PySide6): views, actions, workers. Calls the engine facade, never the model."""
