import type { CallOptions, ListReviewItemsInput, ReviewItemList } from "../client-types";
import type { Transport } from "../transport";
import { callRoute } from "./call";

/** The review queue — what only a person can decide, with its deadline: `client.review`. */
export class ReviewClient {
  readonly #transport: Transport;
  constructor(transport: Transport) {
    this.#transport = transport;
  }

  /** Review items, open ones first by deadline (filters: status, kind, taskId…). */
  list(query: ListReviewItemsInput = {}, options?: CallOptions): Promise<ReviewItemList> {
    return callRoute(this.#transport, "listReviewItems", { query, ...options });
  }
}
