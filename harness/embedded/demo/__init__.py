"""The bundled demo incident: "checkout-api returns HTTP 500 since 14:05" on 2026-11-02.

Package data under `data/`: the application logs of four services (`logs.jsonl.gz`, produced by
`python -m harness.embedded.demo.generate_logs`), the runbooks with their index, and the business database
(owned by `harness.embedded.demo.database`). Every time is UTC.
"""

from __future__ import annotations

import importlib.resources
from datetime import UTC, date, datetime
from pathlib import Path

__all__ = [
    "DEMO_DATA",
    "INCIDENT_DATE",
    "INCIDENT_QUESTION",
    "INCIDENT_START",
    "SERVICES",
    "WINDOW_END",
    "WINDOW_START",
    "logs_path",
    "runbooks_dir",
]

DEMO_DATA = importlib.resources.files("harness.embedded.demo") / "data"

INCIDENT_DATE = date(2026, 11, 2)
INCIDENT_QUESTION = "Why does checkout-api return HTTP 500 since 14:05?"
# The logs cover [WINDOW_START, WINDOW_END); the first symptom is logged at INCIDENT_START.
WINDOW_START = datetime(2026, 11, 2, 13, 0, 0, tzinfo=UTC)
WINDOW_END = datetime(2026, 11, 2, 15, 0, 0, tzinfo=UTC)
INCIDENT_START = datetime(2026, 11, 2, 14, 5, 0, tzinfo=UTC)
SERVICES = ("api-gateway", "checkout-api", "payment-service", "inventory-service")


def logs_path() -> Path:
    """Path of the gzip JSON-lines log file (the package is installed as plain files)."""
    return Path(str(DEMO_DATA / "logs.jsonl.gz"))


def runbooks_dir() -> Path:
    """Directory holding the runbook markdown files and their `index.json`."""
    return Path(str(DEMO_DATA / "runbooks"))
