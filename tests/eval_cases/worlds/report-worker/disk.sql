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
CREATE TABLE deployments (
  id INTEGER PRIMARY KEY,
  service TEXT NOT NULL,
  version TEXT NOT NULL,
  status TEXT NOT NULL,
  deployed_by TEXT NOT NULL,
  deployed_at TEXT NOT NULL
);
INSERT INTO config_changes VALUES (1, 'report-worker', 'report.format', 'csv', 'pdf', 'm.okafor', '2026-05-03 16:20:00', 'CHG-7001');
INSERT INTO deployments VALUES (1, 'report-worker', '4.2.0', 'SUCCEEDED', 'ci-bot', '2026-05-02 11:00:00');
INSERT INTO config_changes VALUES (2, 'report-worker', 'log.retention_days', '1', '30', 'deploy-bot', '2026-05-04 10:05:31', 'CHG-7042');
