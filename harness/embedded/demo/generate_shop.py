"""Deterministic generator of the demo business database script, ``data/shop.sql``.

The output depends on nothing but the seed: one seeded ``random.Random``, no wall clock. The
committed script is what loaders use; this module exists so that it can be regenerated and
checked byte for byte (``--check``).

Story the rows tell (2026-11-02, UTC): orders flow normally from 12:00; checkout-api v2.14.1 is
deployed at 13:30:05 (harmless); CHG-4821 by ``deploy-bot`` sets checkout-api's HikariCP
``maximum-pool-size`` from 40 to 4 at 14:04:12; from 14:05 most orders fail with
``DB_POOL_TIMEOUT`` about 30 s (Hikari's connectionTimeout) after they were created.

Usage::

    python -m harness.embedded.demo.generate_shop [--out PATH] [--check]
"""

from __future__ import annotations

import argparse
import random
import string
import sys
from collections.abc import Sequence
from datetime import datetime, timedelta
from pathlib import Path

from harness.embedded.demo._shop_world import (
    CONFIG_CHANGES,
    DEPLOYMENTS,
    DOMAINS,
    FEATURE_FLAGS,
    FIRST_NAMES,
    LAST_NAMES,
    PRICES_CENTS,
    REGIONS,
    SERVICES,
    table_rows,
)

__all__ = ["SEED", "generate", "main"]

SEED = 20261102
R = random.Random(SEED)
B64 = "./" + string.ascii_uppercase + string.ascii_lowercase + string.digits
ALNUM = string.ascii_letters + string.digits

INCIDENT = datetime(2026, 11, 2, 14, 5, 0)
START = datetime(2026, 11, 2, 12, 0, 0)
END = datetime(2026, 11, 2, 15, 0, 0)


def _q(value: object) -> str:
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, datetime):
        return f"'{value:%Y-%m-%d %H:%M:%S}'"
    return "'" + str(value).replace("\\", "\\\\").replace("'", "''") + "'"


def _inserts(
    table: str, columns: list[str], rows: Sequence[tuple[object, ...]], batch: int = 250
) -> list[str]:
    out = []
    for i in range(0, len(rows), batch):
        chunk = rows[i : i + batch]
        values = ",\n".join("(" + ", ".join(_q(v) for v in row) + ")" for row in chunk)
        out.append(f"INSERT INTO {table} ({', '.join(columns)}) VALUES\n{values};")
    return out


def _rand(alphabet: str, n: int) -> str:
    return "".join(R.choice(alphabet) for _ in range(n))


DDL = """\
-- Demo business database for the bundled incident
-- "checkout-api returns HTTP 500 since 14:05" (2026-11-02, UTC).
-- Generated deterministically (seed 20261102); portable MySQL/MariaDB DDL that sqlglot
-- transpiles to SQLite. Databases `shop` and `ops` are created by the loader, not here.

CREATE TABLE shop.customers (
  id BIGINT NOT NULL PRIMARY KEY,
  name VARCHAR(120) NOT NULL,
  email VARCHAR(255) NOT NULL,
  password_hash CHAR(60) NOT NULL,
  created_at DATETIME NOT NULL,
  region VARCHAR(32) NOT NULL
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

CREATE UNIQUE INDEX uq_customers_email ON shop.customers (email);

CREATE TABLE shop.orders (
  id BIGINT NOT NULL PRIMARY KEY,
  customer_id BIGINT NOT NULL,
  status VARCHAR(16) NOT NULL,
  error_code VARCHAR(64) NULL,
  total_cents BIGINT NOT NULL,
  created_at DATETIME NOT NULL,
  updated_at DATETIME NOT NULL
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

CREATE INDEX idx_orders_created_at ON shop.orders (created_at);
CREATE INDEX idx_orders_status_error ON shop.orders (status, error_code);
CREATE INDEX idx_orders_customer ON shop.orders (customer_id);

CREATE TABLE shop.order_items (
  id BIGINT NOT NULL PRIMARY KEY,
  order_id BIGINT NOT NULL,
  sku VARCHAR(32) NOT NULL,
  qty INT NOT NULL,
  price_cents BIGINT NOT NULL
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

CREATE INDEX idx_order_items_order ON shop.order_items (order_id);

CREATE TABLE shop.payments (
  id BIGINT NOT NULL PRIMARY KEY,
  order_id BIGINT NOT NULL,
  provider VARCHAR(32) NOT NULL,
  status VARCHAR(16) NOT NULL,
  amount_cents BIGINT NOT NULL,
  card_token VARCHAR(64) NOT NULL,
  created_at DATETIME NOT NULL
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

CREATE INDEX idx_payments_order ON shop.payments (order_id);

CREATE TABLE shop.api_tokens (
  id BIGINT NOT NULL PRIMARY KEY,
  customer_id BIGINT NOT NULL,
  token VARCHAR(128) NOT NULL,
  scope VARCHAR(128) NOT NULL,
  created_at DATETIME NOT NULL
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

CREATE INDEX idx_api_tokens_customer ON shop.api_tokens (customer_id);

CREATE TABLE ops.services (
  id INT NOT NULL PRIMARY KEY,
  name VARCHAR(64) NOT NULL,
  team VARCHAR(64) NOT NULL,
  tier INT NOT NULL
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

CREATE UNIQUE INDEX uq_services_name ON ops.services (name);

CREATE TABLE ops.deployments (
  id BIGINT NOT NULL PRIMARY KEY,
  service VARCHAR(64) NOT NULL,
  version VARCHAR(32) NOT NULL,
  deployed_by VARCHAR(64) NOT NULL,
  deployed_at DATETIME NOT NULL,
  status VARCHAR(16) NOT NULL
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

CREATE INDEX idx_deployments_service_at ON ops.deployments (service, deployed_at);

CREATE TABLE ops.config_changes (
  id BIGINT NOT NULL PRIMARY KEY,
  service VARCHAR(64) NOT NULL,
  config_key VARCHAR(255) NOT NULL,
  old_value VARCHAR(255) NULL,
  new_value VARCHAR(255) NULL,
  changed_by VARCHAR(64) NOT NULL,
  changed_at DATETIME NOT NULL,
  ticket VARCHAR(32) NOT NULL
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

CREATE INDEX idx_config_changes_service_at ON ops.config_changes (service, changed_at);

CREATE TABLE ops.feature_flags (
  id INT NOT NULL PRIMARY KEY,
  service VARCHAR(64) NOT NULL,
  flag VARCHAR(128) NOT NULL,
  enabled TINYINT NOT NULL,
  updated_at DATETIME NOT NULL
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;
"""


def generate() -> str:
    """The whole script; the generator is reseeded, so every call returns the same text."""
    R.seed(SEED)
    return _generate()


def _generate() -> str:
    out = [DDL]
    skus = [(f"SKU-{10000 + i * 37}", R.choice(PRICES_CENTS)) for i in range(60)]

    # customers
    customers = []
    emails: set[str] = set()
    for cid in range(1, 361):
        first, last = R.choice(FIRST_NAMES), R.choice(LAST_NAMES)
        base = f"{first}.{last}".lower().replace("'", "")
        email = f"{base}@{R.choice(DOMAINS)}"
        n = 2
        while email in emails:
            email = f"{base}{n}@{R.choice(DOMAINS)}"
            n += 1
        emails.add(email)
        created = datetime(2024, 1, 1) + timedelta(seconds=R.randrange(0, 86400 * 660))
        pw = "$2b$12$" + _rand(B64, 53)
        customers.append((cid, f"{first} {last}", email, pw, created, R.choice(REGIONS)))
    out.append("\n-- customers\n")
    out += _inserts(
        "shop.customers",
        ["id", "name", "email", "password_hash", "created_at", "region"],
        customers,
    )

    # orders, items, payments
    orders, items, payments = [], [], []
    t = START
    oid, iid, pid = 100001, 500001, 900001
    while True:
        rate_s = 5.4 if t < INCIDENT else 4.6  # clients retry once checkout starts failing
        t += timedelta(seconds=R.expovariate(1 / rate_s))
        if t >= END:
            break
        cust = R.randrange(1, 361)
        n_items = R.choices([1, 2, 3, 4], weights=[45, 30, 17, 8])[0]
        total = 0
        for _ in range(n_items):
            sku, price = R.choice(skus)
            qty = R.choices([1, 2, 3], weights=[80, 15, 5])[0]
            items.append((iid, oid, sku, qty, price))
            iid += 1
            total += qty * price
        minutes_in = (t - INCIDENT).total_seconds() / 60
        fail_p = 0.0 if minutes_in < 0 else (0.55 if minutes_in < 2 else 0.88)
        roll = R.random()
        provider = R.choices(["stripe", "adyen", "paypal"], weights=[60, 30, 10])[0]
        card = "tok_" + _rand(ALNUM, 24)
        if roll < fail_p:
            status, err = "FAILED", "DB_POOL_TIMEOUT"
            # HikariCP's connectionTimeout is 30 s: the order fails after waiting that long.
            updated = t + timedelta(seconds=30, milliseconds=R.randrange(0, 900))
            if R.random() < 0.35:  # authorised before the DB write, then voided
                payments.append(
                    (pid, oid, provider, "VOIDED", total, card, t + timedelta(seconds=2))
                )
                pid += 1
        else:
            r2 = R.random()
            if r2 < 0.025:
                status, err = "FAILED", "PAYMENT_DECLINED"
                payments.append(
                    (pid, oid, provider, "DECLINED", total, card, t + timedelta(seconds=1))
                )
                pid += 1
            elif r2 < 0.035:
                status, err = "FAILED", "INVENTORY_UNAVAILABLE"
            elif r2 < 0.05:
                status, err = "CANCELLED", None
            elif r2 < 0.07:
                status, err = "PENDING", None
            else:
                status, err = "PAID", None
                payments.append(
                    (pid, oid, provider, "CAPTURED", total, card, t + timedelta(seconds=1))
                )
                pid += 1
            updated = t + timedelta(seconds=R.randrange(1, 4))
        orders.append((oid, cust, status, err, total, t, updated))
        oid += 1
    out.append("\n-- orders\n")
    out += _inserts(
        "shop.orders",
        ["id", "customer_id", "status", "error_code", "total_cents", "created_at", "updated_at"],
        orders,
    )
    out.append("\n-- order_items\n")
    out += _inserts("shop.order_items", ["id", "order_id", "sku", "qty", "price_cents"], items, 400)
    out.append("\n-- payments\n")
    out += _inserts(
        "shop.payments",
        ["id", "order_id", "provider", "status", "amount_cents", "card_token", "created_at"],
        payments,
    )

    tokens = []
    for tid in range(1, 141):
        created = datetime(2025, 1, 1) + timedelta(seconds=R.randrange(0, 86400 * 600))
        scope = R.choice(
            ["orders:read", "orders:read orders:write", "payments:read", "profile:read"]
        )
        tokens.append((tid, R.randrange(1, 361), "sk_live_" + _rand(ALNUM, 40), scope, created))
    out.append("\n-- api_tokens\n")
    out += _inserts(
        "shop.api_tokens", ["id", "customer_id", "token", "scope", "created_at"], tokens
    )

    out.append("\n-- ops\n")
    out += _inserts("ops.services", ["id", "name", "team", "tier"], table_rows(SERVICES, (0, 3)))
    out += _inserts(
        "ops.deployments",
        ["id", "service", "version", "deployed_by", "deployed_at", "status"],
        table_rows(DEPLOYMENTS),
    )
    out += _inserts(
        "ops.config_changes",
        [
            "id",
            "service",
            "config_key",
            "old_value",
            "new_value",
            "changed_by",
            "changed_at",
            "ticket",
        ],
        table_rows(CONFIG_CHANGES),
    )
    out += _inserts(
        "ops.feature_flags",
        ["id", "service", "flag", "enabled", "updated_at"],
        table_rows(FEATURE_FLAGS, (0, 3)),
    )
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Write (or with ``--check`` compare) the script; returns the process exit code."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    default = Path(__file__).parent / "data" / "shop.sql"
    parser.add_argument("--out", type=Path, default=default, help="where to write shop.sql")
    parser.add_argument("--check", action="store_true", help="fail if --out differs")
    args = parser.parse_args(argv)
    text = generate()
    if args.check:
        same = args.out.exists() and args.out.read_text(encoding="utf-8") == text
        print("up to date" if same else f"{args.out} differs from the generator", file=sys.stderr)
        return 0 if same else 1
    args.out.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
