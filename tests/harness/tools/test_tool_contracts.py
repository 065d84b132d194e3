"""Tool contracts do not drift: JSON-schema snapshots of each typed request and observation.

A deliberate contract change regenerates the snapshots with ``UPDATE_SNAPSHOTS=1``; the diff
then shows up in review like any other change.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from pydantic import BaseModel

from harness.contracts.observation import LogsObservation, MysqlObservation, RagObservation
from harness.tools import default_specs
from harness.tools.arguments import QueryLogsRequest, QueryMysqlRequest, SearchKnowledgeRequest

SNAPSHOTS = Path(__file__).parent / "snapshots"
CONTRACTS: dict[str, tuple[type[BaseModel], type[BaseModel]]] = {
    "query_logs": (QueryLogsRequest, LogsObservation),
    "query_mysql": (QueryMysqlRequest, MysqlObservation),
    "search_knowledge": (SearchKnowledgeRequest, RagObservation),
}


def _schema(tool: str) -> dict[str, object]:
    request, observation = CONTRACTS[tool]
    return {
        "tool": tool,
        "request": request.model_json_schema(),
        "observation": observation.model_json_schema(),
    }


@pytest.mark.parametrize("tool", sorted(CONTRACTS))
def test_tool_contract_snapshot(tool: str) -> None:
    path = SNAPSHOTS / f"{tool}.json"
    current = json.dumps(_schema(tool), indent=2, sort_keys=True) + "\n"
    if os.environ.get("UPDATE_SNAPSHOTS") == "1":
        path.write_text(current)
    assert path.exists(), f"missing snapshot {path.name}; run with UPDATE_SNAPSHOTS=1"
    assert current == path.read_text()


def test_registry_offers_exactly_the_snapshotted_tools() -> None:
    specs = {s.name: s for s in default_specs()}
    assert set(specs) == set(CONTRACTS)
    for name, spec in specs.items():
        assert spec.read_only
        assert spec.request_model is CONTRACTS[name][0]
        definition = spec.definition()
        assert (definition.name, definition.description) == (name, spec.description)
        assert definition.parameters == CONTRACTS[name][0].model_json_schema()
        assert definition.parameters.get("additionalProperties") is False


def test_each_definition_carries_its_own_copy_of_the_schema() -> None:
    """The schema is built once per request model; an edit to one definition's copy must not
    reach the next definition offered."""
    for spec in default_specs():
        first = spec.definition()
        first.parameters["properties"].clear()
        first.parameters["additionalProperties"] = True
        assert spec.definition().parameters == spec.request_model.model_json_schema()
