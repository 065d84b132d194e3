"""The embedded world: the bundled demo incident and the offline model, apart from the run plane.

``demo`` holds the demo's data (logs, shop database, runbooks) and the generators that wrote
them; ``offline`` is the deterministic model that answers every component of a run from the
call signal (docs/architecture.md §1, "The call signal"). The run plane never imports this
package; the embedded default wires it in through :mod:`harness.adapters`.
"""

__all__ = ["demo", "offline"]
