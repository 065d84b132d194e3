"""A guard against patterns that backtrack super-linearly on hostile input (ReDoS).

:func:`finishes` calls a function of the package on each input in a fresh interpreter and
fails when that does not end within a timeout far above what linear matching needs. A
pattern that backtracks quadratically or worse on the inputs (built long for that) would
run for minutes or hours; the subprocess keeps such a run from hanging the test session,
since a regular expression stuck in C cannot be interrupted from Python.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

__all__ = ["finishes"]

_REPO = Path(__file__).resolve().parents[1]


def finishes(function: str, inputs: list[str], timeout_s: float = 60.0) -> None:
    """Call ``function`` (``"package.module:name"``) on every input within ``timeout_s``.

    Raises:
        subprocess.TimeoutExpired: The calls did not finish in time.
        subprocess.CalledProcessError: A call raised.
    """
    module, name = function.split(":")
    script = (
        "import json, sys\n"
        f"from {module} import {name} as call\n"
        "for text in json.loads(sys.stdin.read()):\n"
        "    call(text)\n"
    )
    subprocess.run(
        [sys.executable, "-c", script],
        input=json.dumps(inputs),
        text=True,
        check=True,
        timeout=timeout_s,
        cwd=_REPO,
    )
