#!/bin/sh
# Stand-in for Prisma's native schema engine, which cannot be downloaded on Stopline's offline machines.
# `prisma generate`, `validate` and `format` only check that this file exists; they never run it.
# Migrations are applied by lib/db/migrate.ts, not by `prisma migrate`.
echo "Stopline: the native Prisma schema engine is not installed (offline machine)." >&2
echo "Use 'npm run db:migrate' to apply migrations and 'npm run db:generate' to regenerate clients." >&2
exit 1
