"""A log file that cannot be read is named in the observation and in the run's limitations; an
event whose line names no level is shown with none (null), never as INFO."""

from __future__ import annotations

from pathlib import Path

from harness.backends.logs_files import FileLogBackend
from harness.contracts.observation import LogsObservation
from harness.guards.evidence import VerifiedSnapshot
from harness.projectors.logs import LogsProjector
from harness.release import render_limitations
from harness.testing.tools import RAW_CAP
from harness.tools.arguments import QueryLogsRequest

REQUEST = QueryLogsRequest(start="2026-03-10T09:00:00Z", end="2026-03-10T10:00:00Z")


def _world(tmp_path: Path) -> Path:
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "api.log").write_text(
        "2026-03-10T09:41:07Z ERROR upstream closed\n2026-03-10T09:41:08Z no level on this line\n",
        encoding="utf-8",
    )
    (logs / "core.log").write_bytes(b"\x7fELF\x00\x00\x00\x01" * 64)  # binary: cannot be read
    return logs


def test_unread_files_are_named_and_a_null_level_stays_null(tmp_path: Path) -> None:
    raw = FileLogBackend([_world(tmp_path)]).fetch(REQUEST, max_raw_bytes=RAW_CAP).value()
    assert raw["unread_files"] == ["core.log"]
    observation = LogsProjector().project("call_1", REQUEST, raw).observation
    assert isinstance(observation, LogsObservation)
    assert observation.unread_files == ["core.log"]
    levels = {e.message: e.level for e in observation.events}
    assert levels == {"upstream closed": "ERROR", "no level on this line": None}
    limitations = render_limitations(
        [], VerifiedSnapshot(run_id="run_1", records={"call_1": observation}), [], []
    )
    assert any("core.log could not be read" in line for line in limitations)


def test_an_observation_of_readable_files_serialises_as_before(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "api.log").write_text("2026-03-10T09:41:07Z ERROR upstream closed\n")
    raw = FileLogBackend([logs]).fetch(REQUEST, max_raw_bytes=RAW_CAP).value()
    observation = LogsProjector().project("call_1", REQUEST, raw).observation
    assert "unread_files" not in observation.model_dump()
    assert "unread_files" not in observation.model_dump_json()
    again = LogsObservation.model_validate_json(observation.model_dump_json())
    assert again == observation
