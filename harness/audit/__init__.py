"""The durable audit: what every run leaves on the record, and how it is written.

``records`` (RunRecord and the audit rows: metadata only; the AuditSink and AuditStore
ports), ``writer`` (AuditWriter: the batching, never-blocking sink of one node) and
``reasoning`` (the provider's reasoning, sealed and expiring, for the run's owner only). The
SQL store is an adapter (:mod:`harness.adapters.audit_sql`). Import the names from their modules.
"""

__all__ = ["reasoning", "records", "writer"]
