CREATE TABLE dependency_checks (
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
INSERT INTO dependency_checks VALUES (1, 'elasticsearch', 'OK', NULL, '2026-08-21 08:30:00');
INSERT INTO dependency_checks VALUES (2, 'vault', 'OK', NULL, '2026-08-21 08:30:00');
INSERT INTO dependency_checks VALUES (3, 'elasticsearch', 'OK', NULL, '2026-08-21 08:35:00');
INSERT INTO dependency_checks VALUES (4, 'vault', 'OK', NULL, '2026-08-21 08:35:00');
INSERT INTO dependency_checks VALUES (5, 'elasticsearch', 'OK', NULL, '2026-08-21 08:40:00');
INSERT INTO dependency_checks VALUES (6, 'vault', 'OK', NULL, '2026-08-21 08:40:00');
INSERT INTO dependency_checks VALUES (7, 'elasticsearch', 'OK', NULL, '2026-08-21 08:45:00');
INSERT INTO dependency_checks VALUES (8, 'vault', 'OK', NULL, '2026-08-21 08:45:00');
INSERT INTO dependency_checks VALUES (9, 'elasticsearch', 'OK', NULL, '2026-08-21 08:50:00');
INSERT INTO dependency_checks VALUES (10, 'vault', 'OK', NULL, '2026-08-21 08:50:00');
INSERT INTO dependency_checks VALUES (11, 'elasticsearch', 'OK', NULL, '2026-08-21 08:55:00');
INSERT INTO dependency_checks VALUES (12, 'vault', 'OK', NULL, '2026-08-21 08:55:00');
INSERT INTO dependency_checks VALUES (13, 'elasticsearch', 'OK', NULL, '2026-08-21 09:00:00');
INSERT INTO dependency_checks VALUES (14, 'vault', 'OK', NULL, '2026-08-21 09:00:00');
INSERT INTO dependency_checks VALUES (15, 'elasticsearch', 'OK', NULL, '2026-08-21 09:05:00');
INSERT INTO dependency_checks VALUES (16, 'vault', 'OK', NULL, '2026-08-21 09:05:00');
INSERT INTO dependency_checks VALUES (17, 'elasticsearch', 'OK', NULL, '2026-08-21 09:10:00');
INSERT INTO dependency_checks VALUES (18, 'vault', 'OK', NULL, '2026-08-21 09:10:00');
INSERT INTO dependency_checks VALUES (19, 'elasticsearch', 'OK', NULL, '2026-08-21 09:15:00');
INSERT INTO dependency_checks VALUES (20, 'vault', 'OK', NULL, '2026-08-21 09:15:00');
INSERT INTO dependency_checks VALUES (21, 'elasticsearch', 'OK', NULL, '2026-08-21 09:20:00');
INSERT INTO dependency_checks VALUES (22, 'vault', 'OK', NULL, '2026-08-21 09:20:00');
INSERT INTO dependency_checks VALUES (23, 'elasticsearch', 'OK', NULL, '2026-08-21 09:25:00');
INSERT INTO dependency_checks VALUES (24, 'vault', 'OK', NULL, '2026-08-21 09:25:00');
INSERT INTO dependency_checks VALUES (25, 'elasticsearch', 'OK', NULL, '2026-08-21 09:30:00');
INSERT INTO dependency_checks VALUES (26, 'vault', 'SEALED', '503 Vault is sealed', '2026-08-21 09:30:00');
INSERT INTO dependency_checks VALUES (27, 'elasticsearch', 'OK', NULL, '2026-08-21 09:35:00');
INSERT INTO dependency_checks VALUES (28, 'vault', 'SEALED', '503 Vault is sealed', '2026-08-21 09:35:00');
INSERT INTO dependency_checks VALUES (29, 'elasticsearch', 'OK', NULL, '2026-08-21 09:40:00');
INSERT INTO dependency_checks VALUES (30, 'vault', 'SEALED', '503 Vault is sealed', '2026-08-21 09:40:00');
INSERT INTO dependency_checks VALUES (31, 'elasticsearch', 'OK', NULL, '2026-08-21 09:45:00');
INSERT INTO dependency_checks VALUES (32, 'vault', 'SEALED', '503 Vault is sealed', '2026-08-21 09:45:00');
INSERT INTO dependency_checks VALUES (33, 'elasticsearch', 'OK', NULL, '2026-08-21 09:50:00');
INSERT INTO dependency_checks VALUES (34, 'vault', 'SEALED', '503 Vault is sealed', '2026-08-21 09:50:00');
INSERT INTO dependency_checks VALUES (35, 'elasticsearch', 'OK', NULL, '2026-08-21 09:55:00');
INSERT INTO dependency_checks VALUES (36, 'vault', 'SEALED', '503 Vault is sealed', '2026-08-21 09:55:00');
INSERT INTO flag_events VALUES (1, 'search.ranking.synonyms', 'search-api', 'false', 'true', 'a.ng', '2026-08-20 15:02:00');
INSERT INTO flag_events VALUES (2, 'search.indexer.batch-size-v2', 'search-indexer', 'false', 'true', 'a.ng', '2026-08-21 09:30:20');
INSERT INTO deployments VALUES (1, 'search-indexer', '3.4.0', 'ci-bot', '2026-08-20 16:00:00', 'SUCCEEDED');
