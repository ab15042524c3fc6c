-- Not modelled in Prisma (a storage parameter): room on each of "Task"'s heap pages for a new version of its rows, so
-- that an update touching no indexed column (the engine's run lease, the recorded plan) is a HOT update — one new
-- row version and no entry in any of the table's nine indexes. With full pages such an update went to another page
-- and wrote an entry in every index (issue 22 §5: a Stop writes ~3 task row versions). Applies to pages filled from now on.
ALTER TABLE "Task" SET (fillfactor = 70);
