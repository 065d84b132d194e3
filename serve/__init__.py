"""Entry points: the operator CLI (``serve.cli``) and, next, the Ray Serve HTTP app.

This is the outermost layer: it may import the Ray layer (``actors``), the adapters and the
core, and nothing imports it. It holds no domain logic — it parses input, calls harness or
actors objects, and renders their results.
"""

__all__: list[str] = []
