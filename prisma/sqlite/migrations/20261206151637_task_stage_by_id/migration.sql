-- A task's stage index gains its id (issue 22 §5). A compare-and-set by id from a stage the statistics call rare
-- (cancel_requested is transient, so rare when the table was last analysed) was planned on (stage) and read every
-- task in that stage: in a mass Stop each Stop's engine start read every other Stop in flight. On (stage, id) the
-- same plan reads one row. Queries by stage alone use it as before (its leading column).
-- DropIndex
DROP INDEX "Task_stage_idx";

-- CreateIndex
CREATE INDEX "Task_stage_id_idx" ON "Task"("stage", "id");
