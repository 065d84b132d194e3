"""Fixtures for the whole suite: the third-party corpora (see ``tests/corpora.py``)."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.corpora import CorpusMissing, require


@pytest.fixture(scope="session")
def corpus() -> Callable[..., Path]:
    """``corpus("loghub")``: the path of a corpus under ``HARNESS_CORPORA_DIR``.

    When it is absent the calling test skips, naming the setting and the path looked at; under
    ``CI=true`` it fails instead, since CI always has the corpora.
    """

    def get(*parts: str) -> Path:
        try:
            return require(*parts)
        except CorpusMissing as missing:
            reason = str(missing)
        if os.environ.get("CI") == "true":
            pytest.fail(f"{reason} under CI=true", pytrace=False)
        pytest.skip(reason)

    return get
