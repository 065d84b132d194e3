"""Hosts of runs: the one protocol they share, and what every pool is made of.

- :class:`RunHost` (:mod:`harness.runhost.protocol`): submit, view, wait, watch, cancel and
  trace, for a run's owner — implemented by the run pools, the run desk, and the desk behind
  its actor handle; ``tests/runhost_contract.py`` holds every implementation to it.
- :class:`RunRegistry` and :class:`RunTicket` (:mod:`harness.runhost.registry`): which runs a
  pool holds, who each is for, how each ended.
- :class:`BaseRunPool` (:mod:`harness.runhost.pool`): the verbs over a registry; a pool says
  only where its runs execute.
"""

from harness.runhost.pool import BaseRunPool
from harness.runhost.protocol import RunHost
from harness.runhost.registry import RunEntry, RunRegistry, RunTicket

__all__ = ["BaseRunPool", "RunEntry", "RunHost", "RunRegistry", "RunTicket"]
