import type { CallOptions, Incident, IncidentDetail, IncidentList, OpenIncidentInput, OpenIncidentResponse } from "../client-types";
import type { Transport } from "../transport";
import { callRoute } from "./call";

/** Incidents — the kill switch (operators): `client.incident`. */
export class IncidentClient {
  readonly #transport: Transport;
  constructor(transport: Transport) {
    this.#transport = transport;
  }

  /**
   * Quarantine a tool (`targetKind: "tool"`, its name) or an agent token (`"token"`, its id): from the commit nothing
   * of it is scheduled or claimed anywhere (409 `quarantined` with the reason), and everything of it in flight is
   * stopped like a Stop. A second switch on the same target returns the first (`alreadyOpen`).
   */
  open(body: OpenIncidentInput, options?: CallOptions): Promise<OpenIncidentResponse> {
    return callRoute(this.#transport, "openIncident", { body, ...options });
  }

  async list(options?: CallOptions): Promise<IncidentList["incidents"]> {
    return (await callRoute(this.#transport, "listIncidents", { ...options })).incidents;
  }

  /** One incident: the tasks it touched, each stopped step's outcome, what needs a person. */
  get(incidentId: string, options?: CallOptions): Promise<IncidentDetail> {
    return callRoute(this.#transport, "getIncident", { params: { id: incidentId }, ...options });
  }

  /** Ask to lift a kill switch; another person must confirm (maker-checker). */
  requestLift(incidentId: string, reason: string, options?: CallOptions): Promise<Incident> {
    return callRoute(this.#transport, "requestIncidentLift", { params: { id: incidentId }, body: { reason }, ...options });
  }

  confirmLift(incidentId: string, options?: CallOptions): Promise<Incident> {
    return callRoute(this.#transport, "confirmIncidentLift", { params: { id: incidentId }, body: {}, ...options });
  }

  withdrawLift(incidentId: string, options?: CallOptions): Promise<Incident> {
    return callRoute(this.#transport, "withdrawIncidentLift", { params: { id: incidentId }, body: {}, ...options });
  }
}
