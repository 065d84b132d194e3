"""Contracts: the vocabulary every layer speaks, at the bottom of the core.

Value types and the one error family, importing nothing of the harness but each other and
:mod:`harness.text`: stable error codes (``errors``), identifiers (``ids``), the router's
``intent``, the model port's messages and calls (``models``), a backend's raw response and the
cap counted while it is read (``raw``, ``rawcap``), the canonical invocation (``invocation``),
the model's and the harness's views of a projection (``observation``), the boundary's envelope
(``envelope``), the agent's draft (``draft``), the guards' verdicts (``verdicts``), what a
caller may ask (``ingress``, ``principal``), a run's status (``status``), what it consumed
(``ledger``) and what it releases (``results``); the world's catalog every model is held to
(``catalog``) and what each family of model endpoint can do (``model_profiles``). Import the names from their modules.
"""

__all__ = [
    "catalog",
    "draft",
    "envelope",
    "errors",
    "ids",
    "ingress",
    "intent",
    "invocation",
    "ledger",
    "model_profiles",
    "models",
    "observation",
    "principal",
    "raw",
    "rawcap",
    "results",
    "status",
    "verdicts",
]
