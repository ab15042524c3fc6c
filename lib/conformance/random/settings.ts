/**
 * The random mode's timings: short enough that thousands of scenarios run in minutes, long enough that the real
 * protocols (leases, heartbeats, verification delays) play out as they do in production, only faster. The child
 * processes get the lease lengths through the environment (see `processEnv`).
 */
export const WORKER_OPTIONS = { leaseMs: 1_000, heartbeatMs: 150, pollMs: 25, callTimeoutMs: 1_000 } as const;
export const ENGINE_OPTIONS = {
  verifyDelayMs: 50,
  settleTimeoutMs: 1_500,
  cancelAttempts: 2,
  cancelBackoffMs: 20,
  cancelTimeoutMs: 1_000,
  reconcileIntervalMs: 300,
  maintenanceMs: 100,
} as const;

/** Environment of the slot's processes: leases a restarted process can take over within about a second. */
export const processEnv = (): NodeJS.ProcessEnv => {
  const { NODE_CHANNEL_FD: _ipc, ...env } = process.env; // vitest's fork channel must not reach a grandchild
  return {
    ...env,
    STOPLINE_ENGINE_LEASE_MS: "1000",
    STOPLINE_MAINTENANCE_LEASE_MS: "1000",
    STOPLINE_MAINTENANCE_MS: String(ENGINE_OPTIONS.maintenanceMs),
    STOPLINE_VERIFY_DELAY_MS: String(ENGINE_OPTIONS.verifyDelayMs),
    STOPLINE_LOG_FORMAT: "text",
  };
};
