import type { CallArgs, JsonRouteName, ResponseOf } from "../client-types";
import { REPEAT, type SendArgs, type Transport } from "../transport";

/**
 * One call of a contract route over the shared transport: the path filled from `params`, `query` and `body` sent as
 * the contract says, the answer parsed with the route's schema, retried only if the route is idempotent (REPEAT).
 */
export function callRoute<K extends JsonRouteName>(transport: Transport, name: K, args: CallArgs<K>): Promise<ResponseOf<K>> {
  return transport.send(name, args as SendArgs, REPEAT[name] ?? "once") as Promise<ResponseOf<K>>;
}
