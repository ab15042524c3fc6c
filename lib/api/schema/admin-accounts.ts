import { z } from "zod";
import { PERSON_ROLES, type PersonRole } from "../../auth/permissions";
import { id, isoDate, text } from "./primitives";
import { ApiTokenSchema } from "./incidents";

// ---- administration: API tokens and people's accounts (admin only) -------------------------------------
/** A stored token as the admin page lists it: its prefix, never its hash. */
export const ApiTokenListItemSchema = ApiTokenSchema.extend({ lastUsedAt: isoDate.nullable(), revokedAt: isoDate.nullable() });
export const ApiTokenListSchema = z.object({
  tokens: z.array(ApiTokenListItemSchema),
  /** STOPLINE_BOOTSTRAP_TOKEN: an admin token set in the server's environment (not stored, not revocable here). */
  bootstrap: z.object({ active: z.boolean() }),
});
export const ApiTokenParams = z.object({ id });

export const PersonRoleSchema = z.enum(PERSON_ROLES as [PersonRole, ...PersonRole[]]);
export const AccountParams = z.object({ id });
export const AccountSchema = z.object({
  id,
  name: z.string(),
  email: z.string(),
  role: PersonRoleSchema,
  createdAt: isoDate,
  disabledAt: isoDate.nullable(),
  activeSessions: z.number().int().meta({ description: "sessions that have not expired (browsers where the person is signed in)" }),
});
export const AccountListSchema = z.object({ accounts: z.array(AccountSchema) });
export const CreateAccountBody = z.strictObject({
  name: text(100),
  email: z
    .string()
    .trim()
    .toLowerCase()
    .max(254)
    .pipe(z.email({ message: "must be an e-mail address" })),
  role: PersonRoleSchema,
  password: z.string().min(8, { message: "must be at least 8 characters" }).max(128, { message: "must be at most 128 characters" }),
});
export const ChangeAccountRoleBody = z.strictObject({ role: PersonRoleSchema });
