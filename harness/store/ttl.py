"""The one TTL rule: canonical records must outlive the longest run, so that EvidenceGuard can
still read every record when a run ends."""

from __future__ import annotations

__all__ = ["check_ttl_covers"]


def check_ttl_covers(ttl_s: float, *, deadline_s: float, margin_s: float) -> None:
    """Start-up check: records must outlive the longest run.

    EvidenceGuard reads every cited record at the end of a run; a TTL that can elapse before
    then would turn valid citations into RECORD_EXPIRED.

    Raises:
        ValueError: When ``ttl_s <= deadline_s + margin_s``.
    """
    if ttl_s <= deadline_s + margin_s:
        raise ValueError(
            f"canonical store ttl_s={ttl_s} must exceed the longest run deadline "
            f"({deadline_s} s) plus margin ({margin_s} s)"
        )
