"""The SQLAlchemy URLs of a user's database, as the harness opens and shows them.

* A SQLite file is opened read-only (``mode=ro``): it can be neither created by a typo in its
  path nor written, whatever runs on the connection.
* A URL is shown with its password hidden, everywhere (a policy's provenance, messages).
* A datasource name is derived from the database's own name when none is given.
"""

from __future__ import annotations

import re
from pathlib import Path

import sqlalchemy as sa

from harness.contracts.errors import WorkspaceError
from harness.workspace import WorkspaceReason

__all__ = ["datasource_name", "open_url", "shown_url"]

_NAME = re.compile(r"[^a-z0-9_-]+")


def open_url(url: str) -> sa.URL:
    """The URL to open: a SQLite file read-only (it must exist).

    Raises:
        WorkspaceError: WORKSPACE_INVALID when the text is not a usable URL (DATABASE) or the
            SQLite file does not exist (NOT_FOUND).
    """
    try:
        parsed = sa.make_url(url)
        parsed.get_dialect()  # an unknown dialect or a missing driver fails here, not later
    except (sa.exc.ArgumentError, sa.exc.NoSuchModuleError, ValueError) as exc:
        raise WorkspaceError(
            message=f"not a usable SQLAlchemy URL ({type(exc).__name__})",
            context={"reason": WorkspaceReason.DATABASE.value},
        ) from None
    database = parsed.database or ""
    if parsed.get_backend_name() != "sqlite" or database in ("", ":memory:"):
        return parsed
    if database.startswith("file:"):
        return parsed
    if not Path(database).is_file():
        raise WorkspaceError(
            message=f"SQLite database not found: {database} (it is never created)",
            context={"reason": WorkspaceReason.NOT_FOUND.value},
        )
    return parsed.set(database=f"file:{database}?mode=ro", query={**parsed.query, "uri": "true"})


def shown_url(url: str | sa.URL) -> str:
    """The URL with its password replaced by ``***``."""
    parsed = sa.make_url(url) if isinstance(url, str) else url
    return parsed.render_as_string(hide_password=True)


def datasource_name(url: sa.URL) -> str:
    """A datasource name from the database's name: ``billing.db`` → billing; else ``main``."""
    database = url.database or ""
    if url.get_backend_name() == "sqlite":
        database = Path(database.removeprefix("file:").split("?", 1)[0]).stem
    name = _NAME.sub("-", database.lower()).strip("-")
    return name[:64] or "main"
