import type { Database } from "../db/client";
import { API_TOKEN_FIELDS } from "./tokens";

/** Every API token, active ones first, newest first within each group. Hashes are never selected. */
export async function listApiTokens(database: Database) {
  const tokens = await database.prisma.apiToken.findMany({ select: API_TOKEN_FIELDS, orderBy: [{ createdAt: "desc" }, { id: "asc" }] });
  return tokens.sort((a, b) => Number(a.revokedAt !== null) - Number(b.revokedAt !== null));
}
