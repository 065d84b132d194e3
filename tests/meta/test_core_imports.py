"""The core stays vendor-free: harness/ (but adapters/ and testing/) imports no SDK."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
FORBIDDEN = {"ray", "redis", "sqlalchemy", "fastapi", "openai", "httpx", "pymysql", "fakeredis"}
EXEMPT = ("adapters", "testing")


def _core_modules() -> list[Path]:
    root = REPO / "harness"
    return sorted(p for p in root.rglob("*.py") if p.relative_to(root).parts[0] not in EXEMPT)


def _imported_roots(path: Path) -> set[str]:
    roots: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            roots.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            roots.add(node.module.split(".")[0])
    return roots


def test_core_modules_exist() -> None:
    assert len(_core_modules()) > 10


@pytest.mark.parametrize("path", _core_modules(), ids=lambda p: str(p.relative_to(REPO)))
def test_core_module_imports_no_vendor_sdk(path: Path) -> None:
    assert _imported_roots(path) & FORBIDDEN == set()


def test_the_check_catches_a_vendor_import(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text("import json\nfrom redis.asyncio import Redis\n")
    assert _imported_roots(bad) & FORBIDDEN == {"redis"}
