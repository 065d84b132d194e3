"""Where the tests' own data lives (fixtures written for this project, not corpora)."""

from __future__ import annotations

from pathlib import Path

__all__ = ["FIXTURES", "REPO"]

REPO = Path(__file__).resolve().parents[1]
FIXTURES = Path(__file__).resolve().parent / "fixtures"
