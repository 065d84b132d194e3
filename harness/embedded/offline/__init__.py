"""The offline demo model: a deterministic, rule-based stand-in for an OpenAI-compatible LLM.

Clearly labelled (model name ``offline-demo-model``), it lets the whole harness run without a
model endpoint: it routes questions (:mod:`.routing`), investigates an incident — the bundled
demo's or a user's own world's — with real tool calls (:mod:`.investigation`), reads tables by
their columns (:mod:`.tables`), finds candidate causes (:mod:`.candidates`) and claims a root
cause only when evidence links one to the symptom (:mod:`.linkage`), and judges drafts as a
reviewer would (:mod:`.review`). Change the data and its answer changes. The adapters serve it
through the ``openai`` SDK (an httpx transport or a local HTTP server); this package itself
imports no vendor SDK.
"""

from harness.embedded.offline.conversation import (
    Conversation,
    OfflineRequestError,
    parse_conversation,
)
from harness.embedded.offline.engine import (
    OFFLINE_MODEL_NAME,
    USAGE_COUNTED_BY,
    OfflineDemoModel,
    OfflineReply,
)

__all__ = [
    "OFFLINE_MODEL_NAME",
    "USAGE_COUNTED_BY",
    "Conversation",
    "OfflineDemoModel",
    "OfflineReply",
    "OfflineRequestError",
    "parse_conversation",
]
