"""Diagnosis Harness: the deterministic control boundary around an LLM diagnosis agent.

The core (this package minus ``adapters`` and ``testing``) imports no vendor SDK; the layer
rules are import-linter contracts in ``pyproject.toml``. Where things live (docs/architecture.md
has the whole picture):

- contracts: ``errors``, ``ids``, ``intent``, ``ingress``, ``context``, ``snapshot``,
  ``invocation``, ``observation``, ``envelope``, ``draft``, ``results``, ``verdicts``,
  ``audit``, ``models`` (the model port), ``ports`` (the other ports);
- one run: ``diagnosis`` (DiagnosisRun) → ``agent`` → ``boundary`` → ``tools`` → ``store``
  rules, ``control``, ``budget``, ``retry``, ``trace``; then ``guards`` and ``release``;
- tools' insides: ``projectors``, ``backends``, ``sql``, ``logmining``, ``redaction``;
- the embedded world: ``demo`` (bundled incident) and ``offline`` (the offline demo model);
- ``settings`` (the only reader of the environment), ``clock`` (real time);
- ``adapters`` (vendor SDKs) and ``testing`` (fakes shipped with the library).
"""

__all__: list[str] = []
