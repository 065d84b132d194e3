"""Writes three worlds whose true cause is not a change, with a red-herring change nearer the
symptom than the cause (deterministic; rerun to refresh).

Each world is its own domain, with log formats the other worlds do not use:

* ``payouts`` — ledger-sync sends hourly payout batches to a bank over mutual TLS. Its client
  certificate expired at 05:30; the 06:00 batch is the first to fail ("expired certificate").
  A ledger-sync release at 05:57 is the herring. Logs: RFC 5424 syslog.
* ``thumbnails`` — image-resizer stores thumbnails in the media-thumbs bucket. The
  thumb-cleanup job has failed every hour since 02:20 (its role may not delete), so the bucket
  reached its quota and from 08:14 every store fails with QuotaExceeded. An image-resizer
  setting changed at 08:10 is the herring. Logs: BSD syslog with priorities, no year.
* ``search`` — search-indexer reads its Elasticsearch credentials from vault. A vault node
  restarted at 09:28 and could not auto-unseal; from 09:31 every reindex aborts ("Vault is
  sealed"). A search-indexer flag flipped at 09:30 is the herring. Logs: ECS JSON (nested
  ``service.name``, ``log.level``) and pino JSON (numeric levels, epoch milliseconds).

Every world holds a runbook that matches its symptom and states its cause (and a condition
on rolling back that the evidence contradicts), and a runbook that would blame the herring.

    python tests/eval_cases/worlds/generate_herrings.py
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

HERE = Path(__file__).parent


def _iso(at: datetime) -> str:
    return at.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _sql(at: datetime) -> str:
    return at.strftime("%Y-%m-%d %H:%M:%S")


def _every(start: datetime, end: datetime, step: timedelta) -> Iterator[datetime]:
    at = start
    while at < end:
        yield at
        at += step


def _policy(datasource: str, tables: dict[str, list[str]]) -> str:
    schema = {name: {"columns": columns} for name, columns in tables.items()}
    policy = {
        "datasources": {
            datasource: {"default_schema": "main", "schemas": {"main": {"tables": schema}}}
        }
    }
    return json.dumps(policy, indent=1) + "\n"


# ---------------------------------------------------------------- payouts (RFC 5424)

PAY_DAY = datetime(2026, 6, 12, tzinfo=UTC)
PAY_EXPIRY = PAY_DAY.replace(hour=5, minute=30)
PAY_RELEASE = PAY_DAY.replace(hour=5, minute=57, second=10)
PAY_END = PAY_DAY.replace(hour=7, minute=10)
_PRI = {"ERROR": 11, "WARN": 12, "INFO": 14}
BANK = "bank-gw.partner.example"
CLIENT_CN = "payouts-client.ledger.example"


def _rfc5424(at: datetime, level: str, app: str, message: str, host: str = "pay-1") -> str:
    return f"<{_PRI[level]}>1 {_iso(at)} {host} {app} 4121 - - {message}"


def payouts_logs() -> str:
    lines: list[tuple[datetime, str]] = []
    start = PAY_DAY.replace(hour=4, minute=50)
    for n, at in enumerate(_every(start, PAY_END, timedelta(minutes=1))):
        lines.append(
            (at, _rfc5424(at, "INFO", "ledger-sync", f"heartbeat ok pending_batches={n % 3}"))
        )
    for n, at in enumerate(_every(start, PAY_END, timedelta(minutes=20))):
        took = 11.2 + n % 4
        lines.append(
            (at + timedelta(seconds=7), _rfc5424(at + timedelta(seconds=7), "WARN", "statement-export",
             f"statement export slow: {took:.1f}s for 1200 rows", host="pay-2"))
        )  # fmt: skip
    for hour in (5,):
        at = PAY_DAY.replace(hour=hour, second=3)
        lines.append(
            (
                at,
                _rfc5424(
                    at,
                    "INFO",
                    "ledger-sync",
                    f"payout batch {hour:02d}00 sent 42 transfers to {BANK}",
                ),
            )
        )
    lines.append(
        (PAY_RELEASE, _rfc5424(PAY_RELEASE, "INFO", "ledger-sync", "ledger-sync 5.2.1 started"))
    )
    for at in _every(PAY_DAY.replace(hour=6, second=4), PAY_END, timedelta(minutes=5)):
        batch = f"{at.hour:02d}00"
        lines.append(
            (at, _rfc5424(at, "ERROR", "ledger-sync",
             f"payout batch {batch} failed: TLS handshake with {BANK}:443: remote error: tls: "
             f"expired certificate (client certificate CN={CLIENT_CN})"))
        )  # fmt: skip
        retry = at + timedelta(seconds=1)
        lines.append(
            (
                retry,
                _rfc5424(
                    retry, "WARN", "ledger-sync", f"payout batch {batch} will be retried in 300s"
                ),
            )
        )
    return "".join(line + "\n" for _, line in sorted(lines))


PAYOUTS_SQL = f"""CREATE TABLE certificates (
  id INTEGER PRIMARY KEY,
  common_name TEXT NOT NULL,
  host TEXT NOT NULL,
  issuer TEXT NOT NULL,
  not_before TEXT NOT NULL,
  not_after TEXT NOT NULL
);
CREATE TABLE releases (
  id INTEGER PRIMARY KEY,
  service TEXT NOT NULL,
  version TEXT NOT NULL,
  released_by TEXT NOT NULL,
  released_at TEXT NOT NULL,
  status TEXT NOT NULL
);
CREATE TABLE payout_batches (
  id INTEGER PRIMARY KEY,
  batch_no TEXT NOT NULL,
  transfers INTEGER NOT NULL,
  status TEXT NOT NULL,
  error_code TEXT,
  created_at TEXT NOT NULL
);
INSERT INTO certificates VALUES (1, '{CLIENT_CN}', 'pay-1', 'Partner Bank Client CA', '2025-06-12 05:30:00', '{_sql(PAY_EXPIRY)}');
INSERT INTO certificates VALUES (2, 'api.ledger.example', 'api-1', 'Ledger Internal CA', '2026-01-02 00:00:00', '2027-01-02 00:00:00');
INSERT INTO certificates VALUES (3, 'statements.ledger.example', 'pay-2', 'Ledger Internal CA', '2026-03-01 00:00:00', '2026-09-01 00:00:00');
INSERT INTO releases VALUES (1, 'ledger-sync', '5.2.0', 'ci-bot', '2026-06-10 14:02:00', 'SUCCEEDED');
INSERT INTO releases VALUES (2, 'statement-export', '1.8.3', 'ci-bot', '2026-06-11 09:30:00', 'SUCCEEDED');
INSERT INTO releases VALUES (3, 'ledger-sync', '5.2.1', 'ci-bot', '{_sql(PAY_RELEASE)}', 'SUCCEEDED');
INSERT INTO payout_batches VALUES (1, '0400', 40, 'SENT', NULL, '2026-06-12 04:00:03');
INSERT INTO payout_batches VALUES (2, '0500', 42, 'SENT', NULL, '2026-06-12 05:00:03');
INSERT INTO payout_batches VALUES (3, '0600', 44, 'FAILED', 'TLS_HANDSHAKE', '2026-06-12 06:00:04');
INSERT INTO payout_batches VALUES (4, '0700', 39, 'FAILED', 'TLS_HANDSHAKE', '2026-06-12 07:00:04');
"""

PAYOUTS_POLICY = _policy(
    "payouts",
    {
        "certificates": ["id", "common_name", "host", "issuer", "not_before", "not_after"],
        "releases": ["id", "service", "version", "released_by", "released_at", "status"],
        "payout_batches": ["id", "batch_no", "transfers", "status", "error_code", "created_at"],
    },
)

PAYOUTS_TLS_RUNBOOK = f"""# Bank gateway: payouts fail with TLS handshake errors

## Symptom

ledger-sync logs `payout batch NNNN failed: TLS handshake with {BANK}:443` and the payout
batches stay FAILED. The bank refuses the handshake with `remote error: tls: expired
certificate` or `bad certificate`.

## Cause

The bank only accepts the client certificate ledger-sync presents (CN {CLIENT_CN}). It is
valid for one year; once its not_after has passed (see the certificates table), every new
handshake is refused. Batches run hourly, so the first failure shows at the next batch after
the expiry, not at the expiry itself.

## Remediation

- Renew the client certificate in the bank's portal and install it: `certctl install payouts-client`.
- Re-run the failed batches: `payoutctl retry --batch NNNN`.
- Roll back a ledger-sync release only if the client certificate is valid: a rollback does not renew it.
"""

PAYOUTS_RELEASE_RUNBOOK = """# ledger-sync: payout batches failing after a release

## Symptom

Payout batches fail shortly after a ledger-sync release.

## Cause

A release changed how transfers are built or sent to the bank.

## Remediation

- Roll back the release: `deployctl rollback ledger-sync --to previous`.
- Read the release notes for payout changes.
"""


# ---------------------------------------------------------------- thumbnails (BSD syslog)

THUMB_DAY = datetime(2026, 7, 3, tzinfo=UTC)
THUMB_ONSET = THUMB_DAY.replace(hour=8, minute=14, second=3)
THUMB_CHANGE = THUMB_DAY.replace(hour=8, minute=10, second=40)
THUMB_END = THUMB_DAY.replace(hour=9)
BUCKET = "media-thumbs"


def _bsd(at: datetime, level: str, host: str, app: str, pid: int, message: str) -> str:
    return f"<{_PRI[level]}>{at.strftime('%b %e %H:%M:%S')} {host} {app}[{pid}]: {message}"


def thumbnails_logs() -> str:
    lines: list[tuple[datetime, str]] = []
    for n, at in enumerate(
        _every(THUMB_DAY.replace(hour=6, minute=10), THUMB_END, timedelta(seconds=30))
    ):
        host = f"thumb-{1 + n % 2}"
        sku = 1200 + n
        if at < THUMB_ONSET:
            lines.append(
                (
                    at,
                    _bsd(
                        at,
                        "INFO",
                        host,
                        "image-resizer",
                        2211,
                        f"resized sku-{sku} to 320x320 and stored {BUCKET}/sku-{sku}/320.webp",
                    ),
                )
            )
        else:
            lines.append(
                (
                    at,
                    _bsd(
                        at,
                        "ERROR",
                        host,
                        "image-resizer",
                        2211,
                        f"store {BUCKET}/sku-{sku}/320.webp failed: QuotaExceeded: bucket "
                        f"{BUCKET} is over its storage quota",
                    ),
                )
            )
            later = at + timedelta(seconds=1)
            lines.append(
                (
                    later,
                    _bsd(
                        later,
                        "WARN",
                        host,
                        "image-resizer",
                        2211,
                        f"thumbnail sku-{sku} left unresized, will retry",
                    ),
                )
            )
    reload = THUMB_CHANGE + timedelta(seconds=5)
    lines.append(
        (
            reload,
            _bsd(
                reload,
                "INFO",
                "thumb-1",
                "image-resizer",
                2211,
                "reloaded config: resize.webp.quality=85",
            ),
        )
    )
    for hour in range(0, 9):
        at = THUMB_DAY.replace(hour=hour, minute=20, second=2)
        if hour < 2:
            message, level = f"cleanup of {BUCKET} deleted 1834 expired thumbnails", "INFO"
        else:
            message = (
                f"cleanup of {BUCKET} failed: AccessDenied: role thumb-cleanup may not "
                f"delete objects in {BUCKET}"
            )
            level = "ERROR"
        lines.append((at, _bsd(at, level, "cron-1", "thumb-cleanup", 901, message)))
    return "".join(line + "\n" for _, line in sorted(lines))  # fmt: skip


def thumbnails_sql() -> str:
    rows = []
    n = 0
    for at in _every(THUMB_DAY.replace(hour=6), THUMB_END, timedelta(minutes=10)):
        steps = int((at - THUMB_DAY.replace(hour=6)).total_seconds() // 600)
        used = min(430 + 5 * steps, 500)
        n += 1
        rows.append(
            f"INSERT INTO bucket_usage VALUES ({n}, '{BUCKET}', {used}, 500, '{_sql(at)}');"
        )
        n += 1
        rows.append(
            f"INSERT INTO bucket_usage VALUES ({n}, 'media-originals', {1200 + steps}, 5000, '{_sql(at)}');"
        )
    for hour in range(0, 9):
        at = THUMB_DAY.replace(hour=hour, minute=20)
        status, error = (
            ("SUCCEEDED", "NULL")
            if hour < 2
            else ("FAILED", "'AccessDenied: role thumb-cleanup may not delete objects'")
        )
        rows.append(
            f"INSERT INTO job_runs VALUES ({hour + 1}, 'thumb-cleanup', '{BUCKET}', '{status}', {error}, '{_sql(at)}');"
        )
    changes = [
        (
            1,
            "image-resizer",
            "resize.jpeg.progressive",
            "false",
            "true",
            "l.moreau",
            "2026-07-01 10:12:00",
            "CHG-5101",
        ),
        (
            2,
            "image-resizer",
            "resize.webp.quality",
            "80",
            "85",
            "l.moreau",
            _sql(THUMB_CHANGE),
            "CHG-5120",
        ),
    ]
    rows += [
        "INSERT INTO config_changes VALUES ({}, '{}', '{}', '{}', '{}', '{}', '{}', '{}');".format(
            *c
        )
        for c in changes
    ]
    schema = """CREATE TABLE bucket_usage (
  id INTEGER PRIMARY KEY,
  bucket TEXT NOT NULL,
  used_gib INTEGER NOT NULL,
  quota_gib INTEGER NOT NULL,
  sampled_at TEXT NOT NULL
);
CREATE TABLE job_runs (
  id INTEGER PRIMARY KEY,
  job_name TEXT NOT NULL,
  target_bucket TEXT NOT NULL,
  status TEXT NOT NULL,
  error TEXT,
  started_at TEXT NOT NULL
);
CREATE TABLE config_changes (
  id INTEGER PRIMARY KEY,
  service TEXT NOT NULL,
  config_key TEXT NOT NULL,
  old_value TEXT,
  new_value TEXT,
  changed_by TEXT NOT NULL,
  changed_at TEXT NOT NULL,
  ticket TEXT
);
"""
    return schema + "\n".join(rows) + "\n"  # fmt: skip


THUMBNAILS_POLICY = _policy(
    "media",
    {
        "bucket_usage": ["id", "bucket", "used_gib", "quota_gib", "sampled_at"],
        "job_runs": ["id", "job_name", "target_bucket", "status", "error", "started_at"],
        "config_changes": [
            "id", "service", "config_key", "old_value", "new_value", "changed_by", "changed_at",
            "ticket",
        ],
    },
)  # fmt: skip

THUMBNAILS_QUOTA_RUNBOOK = f"""# image-resizer: thumbnails not stored (QuotaExceeded)

## Symptom

image-resizer logs `store {BUCKET}/... failed: QuotaExceeded: bucket {BUCKET} is over its
storage quota` and product pages show placeholder images instead of thumbnails.

## Cause

The {BUCKET} bucket has a fixed storage quota. Thumbnails are only ever deleted by the
thumb-cleanup job: when that job fails, the bucket fills up within hours and reaches its
quota.

## Remediation

- Fix the failing thumb-cleanup job (its last error is in job_runs) and run it once by hand: `jobctl run thumb-cleanup`.
- Raise the quota of {BUCKET} for the day: `bucketctl quota {BUCKET} 600GiB`.
- Revert an image-resizer setting only if the bucket is below its quota: settings do not free space.
"""

THUMBNAILS_SETTINGS_RUNBOOK = """# image-resizer settings

## Symptom

Thumbnails look blurry, or are larger than before, right after a settings change.

## Remediation

- Revert the setting: `configctl revert --service image-resizer --change CHG-####`.
"""


# ---------------------------------------------------------------- search (ECS and pino JSON)

SEARCH_DAY = datetime(2026, 8, 21, tzinfo=UTC)
SEARCH_RESTART = SEARCH_DAY.replace(hour=9, minute=28, second=40)
SEARCH_ONSET = SEARCH_DAY.replace(hour=9, minute=31, second=7)
SEARCH_FLAG = SEARCH_DAY.replace(hour=9, minute=30, second=20)
SEARCH_END = SEARCH_DAY.replace(hour=10)
_PINO = {"INFO": 30, "WARN": 40, "ERROR": 50}


def _ecs(at: datetime, level: str, message: str) -> str:
    body = {"@timestamp": _iso(at), "log": {"level": level.lower()},
            "service": {"name": "search-indexer"}, "message": message}  # fmt: skip
    return json.dumps(body)


def _pino(at: datetime, level: str, message: str) -> str:
    body = {
        "level": _PINO[level],
        "time": int(at.timestamp() * 1000),
        "app": "vault",
        "msg": message,
    }
    return json.dumps(body)


def search_indexer_logs() -> str:
    lines: list[tuple[datetime, str]] = []
    for at in _every(
        SEARCH_DAY.replace(hour=8, minute=30, second=7), SEARCH_END, timedelta(minutes=1)
    ):
        if at < SEARCH_ONSET:
            lines.append((at, _ecs(at, "INFO", "indexed 500 documents into catalog-products")))
        else:
            lines.append(
                (
                    at,
                    _ecs(
                        at,
                        "ERROR",
                        "reindex of catalog-products aborted: reading secret "
                        "kv/search/es-writer: Vault is sealed (503)",
                    ),
                )
            )
            behind = at + timedelta(seconds=2)
            minutes = int((at - SEARCH_ONSET).total_seconds() // 60) + 1
            lines.append(
                (
                    behind,
                    _ecs(behind, "WARN", f"catalog-products index is {minutes} minutes behind"),
                )
            )
    flag = SEARCH_FLAG + timedelta(seconds=4)
    lines.append((flag, _ecs(flag, "INFO", "flag search.indexer.batch-size-v2 changed to true")))
    return "".join(line + "\n" for _, line in sorted(lines))  # fmt: skip


def vault_logs() -> str:
    lines: list[tuple[datetime, str]] = []
    for at in _every(SEARCH_DAY.replace(hour=8), SEARCH_RESTART, timedelta(minutes=5)):
        lines.append((at, _pino(at, "INFO", "core: vault is unsealed, 3 secrets engines mounted")))
    lines.append(
        (
            SEARCH_RESTART,
            _pino(
                SEARCH_RESTART,
                "WARN",
                "core: node restarted; auto-unseal failed: kms key unreachable",
            ),
        )
    )
    for at in _every(SEARCH_RESTART + timedelta(seconds=1), SEARCH_END, timedelta(seconds=30)):
        lines.append(
            (at, _pino(at, "ERROR", "core: security barrier is sealed; rejecting requests"))
        )
    return "".join(line + "\n" for _, line in sorted(lines))  # fmt: skip


def search_sql() -> str:
    rows = []
    n = 0
    for at in _every(SEARCH_DAY.replace(hour=8, minute=30), SEARCH_END, timedelta(minutes=5)):
        for dependency in ("elasticsearch", "vault"):
            n += 1
            sealed = dependency == "vault" and at > SEARCH_RESTART
            state, detail = ("SEALED", "'503 Vault is sealed'") if sealed else ("OK", "NULL")
            rows.append(
                f"INSERT INTO dependency_checks VALUES ({n}, '{dependency}', '{state}', {detail}, '{_sql(at)}');"
            )
    flags = [
        (
            1,
            "search.ranking.synonyms",
            "search-api",
            "false",
            "true",
            "a.ng",
            "2026-08-20 15:02:00",
        ),
        (
            2,
            "search.indexer.batch-size-v2",
            "search-indexer",
            "false",
            "true",
            "a.ng",
            _sql(SEARCH_FLAG),
        ),
    ]
    rows += [
        "INSERT INTO flag_events VALUES ({}, '{}', '{}', '{}', '{}', '{}', '{}');".format(*f)
        for f in flags
    ]
    rows.append(
        "INSERT INTO deployments VALUES (1, 'search-indexer', '3.4.0', 'ci-bot', '2026-08-20 16:00:00', 'SUCCEEDED');"
    )
    schema = """CREATE TABLE dependency_checks (
  id INTEGER PRIMARY KEY,
  dependency TEXT NOT NULL,
  state TEXT NOT NULL,
  detail TEXT,
  checked_at TEXT NOT NULL
);
CREATE TABLE flag_events (
  id INTEGER PRIMARY KEY,
  flag_key TEXT NOT NULL,
  service TEXT NOT NULL,
  old_value TEXT,
  new_value TEXT,
  changed_by TEXT NOT NULL,
  changed_at TEXT NOT NULL
);
CREATE TABLE deployments (
  id INTEGER PRIMARY KEY,
  service TEXT NOT NULL,
  version TEXT NOT NULL,
  deployed_by TEXT NOT NULL,
  deployed_at TEXT NOT NULL,
  status TEXT NOT NULL
);
"""
    return schema + "\n".join(rows) + "\n"  # fmt: skip


SEARCH_POLICY = _policy(
    "search",
    {
        "dependency_checks": ["id", "dependency", "state", "detail", "checked_at"],
        "flag_events": [
            "id", "flag_key", "service", "old_value", "new_value", "changed_by", "changed_at",
        ],
        "deployments": ["id", "service", "version", "deployed_by", "deployed_at", "status"],
    },
)  # fmt: skip

SEARCH_SECRETS_RUNBOOK = """# search-indexer: reindex aborted, secrets unavailable

## Symptom

search-indexer logs `reindex of <index> aborted: reading secret kv/search/es-writer: Vault is
sealed (503)` and the search index falls behind.

## Cause

Vault seals itself when a node restarts and auto-unseal cannot reach its KMS key. Until it
is unsealed every secret read answers 503, and search-indexer cannot write to Elasticsearch.

## Remediation

- Unseal vault: `vault operator unseal` with three key shares, or restore its access to the KMS key.
- Do not roll back search-indexer or its flags while vault is sealed: the indexer only needs its secret.
- After unsealing, trigger a reindex: `searchctl reindex catalog-products`.
"""

SEARCH_FLAGS_RUNBOOK = """# Search feature flags

## Symptom

Indexing or ranking behaves differently right after a search flag was flipped.

## Remediation

- Flip the flag back: `flagctl set search.indexer.batch-size-v2 false`.
"""


def files() -> dict[str, str]:
    """Every file of the three worlds, by path under this folder."""
    return {
        "payouts/logs/payouts.log": payouts_logs(),
        "payouts/payouts.sql": PAYOUTS_SQL,
        "payouts/sql-policy.json": PAYOUTS_POLICY,
        "payouts/runbooks/bank-gateway-tls.md": PAYOUTS_TLS_RUNBOOK,
        "payouts/runbooks/ledger-sync-releases.md": PAYOUTS_RELEASE_RUNBOOK,
        "thumbnails/logs/media.log": thumbnails_logs(),
        "thumbnails/media.sql": thumbnails_sql(),
        "thumbnails/sql-policy.json": THUMBNAILS_POLICY,
        "thumbnails/runbooks/thumbnail-quota.md": THUMBNAILS_QUOTA_RUNBOOK,
        "thumbnails/runbooks/image-resizer-settings.md": THUMBNAILS_SETTINGS_RUNBOOK,
        "search/logs/search-indexer.ndjson": search_indexer_logs(),
        "search/logs/vault.log": vault_logs(),
        "search/search.sql": search_sql(),
        "search/sql-policy.json": SEARCH_POLICY,
        "search/runbooks/search-indexer-secrets.md": SEARCH_SECRETS_RUNBOOK,
        "search/runbooks/search-flags.md": SEARCH_FLAGS_RUNBOOK,
    }


def main() -> None:
    for name, text in files().items():
        path = HERE / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
