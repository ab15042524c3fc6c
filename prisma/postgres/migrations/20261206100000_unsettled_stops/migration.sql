-- Not modelled in Prisma (a partial index): the maintenance pass's read of Stops not yet finished (engine.ts) read
-- every task (issue 22 §3; bench:pg part H with BENCH_PG_STATS=1 at 1,000,000 finished items: two sequential scans
-- of Task per run). Its two halves are now served by the index on "stage" (a task being stopped) and this one (a
-- stopped task whose settlement is not recorded): it holds only those few rows, so the hot path pays nothing.
CREATE INDEX "Task_stop_unsettled_idx" ON "Task"("cancelRequestedAt") WHERE "cancelRequestedAt" IS NOT NULL AND "settledAt" IS NULL;
