CREATE TABLE bucket_usage (
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
INSERT INTO bucket_usage VALUES (1, 'media-thumbs', 430, 500, '2026-07-03 06:00:00');
INSERT INTO bucket_usage VALUES (2, 'media-originals', 1200, 5000, '2026-07-03 06:00:00');
INSERT INTO bucket_usage VALUES (3, 'media-thumbs', 435, 500, '2026-07-03 06:10:00');
INSERT INTO bucket_usage VALUES (4, 'media-originals', 1201, 5000, '2026-07-03 06:10:00');
INSERT INTO bucket_usage VALUES (5, 'media-thumbs', 440, 500, '2026-07-03 06:20:00');
INSERT INTO bucket_usage VALUES (6, 'media-originals', 1202, 5000, '2026-07-03 06:20:00');
INSERT INTO bucket_usage VALUES (7, 'media-thumbs', 445, 500, '2026-07-03 06:30:00');
INSERT INTO bucket_usage VALUES (8, 'media-originals', 1203, 5000, '2026-07-03 06:30:00');
INSERT INTO bucket_usage VALUES (9, 'media-thumbs', 450, 500, '2026-07-03 06:40:00');
INSERT INTO bucket_usage VALUES (10, 'media-originals', 1204, 5000, '2026-07-03 06:40:00');
INSERT INTO bucket_usage VALUES (11, 'media-thumbs', 455, 500, '2026-07-03 06:50:00');
INSERT INTO bucket_usage VALUES (12, 'media-originals', 1205, 5000, '2026-07-03 06:50:00');
INSERT INTO bucket_usage VALUES (13, 'media-thumbs', 460, 500, '2026-07-03 07:00:00');
INSERT INTO bucket_usage VALUES (14, 'media-originals', 1206, 5000, '2026-07-03 07:00:00');
INSERT INTO bucket_usage VALUES (15, 'media-thumbs', 465, 500, '2026-07-03 07:10:00');
INSERT INTO bucket_usage VALUES (16, 'media-originals', 1207, 5000, '2026-07-03 07:10:00');
INSERT INTO bucket_usage VALUES (17, 'media-thumbs', 470, 500, '2026-07-03 07:20:00');
INSERT INTO bucket_usage VALUES (18, 'media-originals', 1208, 5000, '2026-07-03 07:20:00');
INSERT INTO bucket_usage VALUES (19, 'media-thumbs', 475, 500, '2026-07-03 07:30:00');
INSERT INTO bucket_usage VALUES (20, 'media-originals', 1209, 5000, '2026-07-03 07:30:00');
INSERT INTO bucket_usage VALUES (21, 'media-thumbs', 480, 500, '2026-07-03 07:40:00');
INSERT INTO bucket_usage VALUES (22, 'media-originals', 1210, 5000, '2026-07-03 07:40:00');
INSERT INTO bucket_usage VALUES (23, 'media-thumbs', 485, 500, '2026-07-03 07:50:00');
INSERT INTO bucket_usage VALUES (24, 'media-originals', 1211, 5000, '2026-07-03 07:50:00');
INSERT INTO bucket_usage VALUES (25, 'media-thumbs', 490, 500, '2026-07-03 08:00:00');
INSERT INTO bucket_usage VALUES (26, 'media-originals', 1212, 5000, '2026-07-03 08:00:00');
INSERT INTO bucket_usage VALUES (27, 'media-thumbs', 495, 500, '2026-07-03 08:10:00');
INSERT INTO bucket_usage VALUES (28, 'media-originals', 1213, 5000, '2026-07-03 08:10:00');
INSERT INTO bucket_usage VALUES (29, 'media-thumbs', 500, 500, '2026-07-03 08:20:00');
INSERT INTO bucket_usage VALUES (30, 'media-originals', 1214, 5000, '2026-07-03 08:20:00');
INSERT INTO bucket_usage VALUES (31, 'media-thumbs', 500, 500, '2026-07-03 08:30:00');
INSERT INTO bucket_usage VALUES (32, 'media-originals', 1215, 5000, '2026-07-03 08:30:00');
INSERT INTO bucket_usage VALUES (33, 'media-thumbs', 500, 500, '2026-07-03 08:40:00');
INSERT INTO bucket_usage VALUES (34, 'media-originals', 1216, 5000, '2026-07-03 08:40:00');
INSERT INTO bucket_usage VALUES (35, 'media-thumbs', 500, 500, '2026-07-03 08:50:00');
INSERT INTO bucket_usage VALUES (36, 'media-originals', 1217, 5000, '2026-07-03 08:50:00');
INSERT INTO job_runs VALUES (1, 'thumb-cleanup', 'media-thumbs', 'SUCCEEDED', NULL, '2026-07-03 00:20:00');
INSERT INTO job_runs VALUES (2, 'thumb-cleanup', 'media-thumbs', 'SUCCEEDED', NULL, '2026-07-03 01:20:00');
INSERT INTO job_runs VALUES (3, 'thumb-cleanup', 'media-thumbs', 'FAILED', 'AccessDenied: role thumb-cleanup may not delete objects', '2026-07-03 02:20:00');
INSERT INTO job_runs VALUES (4, 'thumb-cleanup', 'media-thumbs', 'FAILED', 'AccessDenied: role thumb-cleanup may not delete objects', '2026-07-03 03:20:00');
INSERT INTO job_runs VALUES (5, 'thumb-cleanup', 'media-thumbs', 'FAILED', 'AccessDenied: role thumb-cleanup may not delete objects', '2026-07-03 04:20:00');
INSERT INTO job_runs VALUES (6, 'thumb-cleanup', 'media-thumbs', 'FAILED', 'AccessDenied: role thumb-cleanup may not delete objects', '2026-07-03 05:20:00');
INSERT INTO job_runs VALUES (7, 'thumb-cleanup', 'media-thumbs', 'FAILED', 'AccessDenied: role thumb-cleanup may not delete objects', '2026-07-03 06:20:00');
INSERT INTO job_runs VALUES (8, 'thumb-cleanup', 'media-thumbs', 'FAILED', 'AccessDenied: role thumb-cleanup may not delete objects', '2026-07-03 07:20:00');
INSERT INTO job_runs VALUES (9, 'thumb-cleanup', 'media-thumbs', 'FAILED', 'AccessDenied: role thumb-cleanup may not delete objects', '2026-07-03 08:20:00');
INSERT INTO config_changes VALUES (1, 'image-resizer', 'resize.jpeg.progressive', 'false', 'true', 'l.moreau', '2026-07-01 10:12:00', 'CHG-5101');
INSERT INTO config_changes VALUES (2, 'image-resizer', 'resize.webp.quality', '80', '85', 'l.moreau', '2026-07-03 08:10:40', 'CHG-5120');
