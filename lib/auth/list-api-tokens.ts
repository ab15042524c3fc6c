import type { Database } from "../db/client";
import { API_TOKEN_FIELDS } from "./tokens";

/** Every API token, active ones first, newest first within each group. Hashes are never selected. */
/**
 * Is the bootstrap token (STOPLINE_BOOTSTRAP_TOKEN, an admin token from the server's environment) live? The same rule
 * that lets it sign in (at least 16 characters): the token page must not say "No API tokens" while it works.
 */
export function bootstrapTokenStatus(): { active: boolean } {
  const bootstrap = process.env.STOPLINE_BOOTSTRAP_TOKEN;
  return { active: !!bootstrap && bootstrap.length >= 16 };
}

export async function listApiTokens(database: Database) {
  const tokens = await database.prisma.apiToken.findMany({ select: API_TOKEN_FIELDS, orderBy: [{ createdAt: "desc" }, { id: "asc" }] });
  return tokens.sort((a, b) => Number(a.revokedAt !== null) - Number(b.revokedAt !== null));
}
