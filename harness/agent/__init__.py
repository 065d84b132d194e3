"""The agent side of a run: model calls, routing, the diagnosis loop and answer paths."""
