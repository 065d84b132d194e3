"""Revisions of the audit schema, oldest first (``down_revision`` links them)."""
