"""The canonical store's rules, shared by every CanonicalStore implementation.

``transitions`` decides which paths are legal and what the successor record looks like;
``codec`` decides how a record is stored and how large it may be; ``ttl`` holds the one rule
tying the record lifetime to the longest run. The stores themselves (Redis in
``harness/adapters``, the local one of a single process in ``local``, its outage-simulating
subclass in ``harness/testing``) only make the check-and-write atomic.
"""

from harness.store.codec import decode_record, encode_record
from harness.store.local import LocalCanonicalStore
from harness.store.transitions import TransitionMethods, require_projecting, to_error, to_ready
from harness.store.ttl import check_ttl_covers

__all__ = [
    "LocalCanonicalStore",
    "TransitionMethods",
    "check_ttl_covers",
    "decode_record",
    "encode_record",
    "require_projecting",
    "to_error",
    "to_ready",
]
