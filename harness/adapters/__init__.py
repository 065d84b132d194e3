"""Adapters: the only part of ``harness`` that imports vendor SDKs.

Each module implements a port of :mod:`harness.ports` (or the model port) over a real system:
``redis_store`` (CanonicalStore on Redis / in-process fakeredis), ``readonly_sql`` (the
``query_mysql`` backend over SQLAlchemy), ``demo_db`` (the bundled database on SQLite),
``loki`` and ``rag_http`` (HTTP backends), ``openai_model`` (ModelClient over the openai
SDK), ``offline_transport`` / ``offline_server`` (the offline demo model behind the SDK) and
``audit_tables`` / ``audit_sql`` / ``migrations`` (the durable audit on SQL, its schema and
its Alembic migrations), ``embedded`` (the composition root: settings → a tool plane and RunDeps). Modules are not
imported here, so importing one adapter never pulls in every SDK.
"""

__all__ = [
    "audit_sql",
    "audit_tables",
    "demo_db",
    "embedded",
    "loki",
    "migrations",
    "offline_server",
    "offline_transport",
    "openai_model",
    "rag_http",
    "readonly_sql",
    "redis_store",
]
