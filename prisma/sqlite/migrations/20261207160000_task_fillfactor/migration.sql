-- PostgreSQL only (a heap fillfactor for HOT updates of "Task"); SQLite has no such setting. Kept so that both
-- databases list the same migrations.
SELECT 1;
