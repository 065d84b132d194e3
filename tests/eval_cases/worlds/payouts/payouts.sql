CREATE TABLE certificates (
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
INSERT INTO certificates VALUES (1, 'payouts-client.ledger.example', 'pay-1', 'Partner Bank Client CA', '2025-06-12 05:30:00', '2026-06-12 05:30:00');
INSERT INTO certificates VALUES (2, 'api.ledger.example', 'api-1', 'Ledger Internal CA', '2026-01-02 00:00:00', '2027-01-02 00:00:00');
INSERT INTO certificates VALUES (3, 'statements.ledger.example', 'pay-2', 'Ledger Internal CA', '2026-03-01 00:00:00', '2026-09-01 00:00:00');
INSERT INTO releases VALUES (1, 'ledger-sync', '5.2.0', 'ci-bot', '2026-06-10 14:02:00', 'SUCCEEDED');
INSERT INTO releases VALUES (2, 'statement-export', '1.8.3', 'ci-bot', '2026-06-11 09:30:00', 'SUCCEEDED');
INSERT INTO releases VALUES (3, 'ledger-sync', '5.2.1', 'ci-bot', '2026-06-12 05:57:10', 'SUCCEEDED');
INSERT INTO payout_batches VALUES (1, '0400', 40, 'SENT', NULL, '2026-06-12 04:00:03');
INSERT INTO payout_batches VALUES (2, '0500', 42, 'SENT', NULL, '2026-06-12 05:00:03');
INSERT INTO payout_batches VALUES (3, '0600', 44, 'FAILED', 'TLS_HANDSHAKE', '2026-06-12 06:00:04');
INSERT INTO payout_batches VALUES (4, '0700', 39, 'FAILED', 'TLS_HANDSHAKE', '2026-06-12 07:00:04');
