import type { Database } from "../../db/client";
import type { HostedAction } from "./actions";

export interface HostedToolInput {
  name: string;
  /** What its host can do for a call of it. */
  capabilities: HostedAction[];
  risk: string;
  mechanism: string;
  commitsEffect: boolean;
}

/** What a ToolHost row's `capabilities` column holds. */
export interface HostedCapabilities {
  actions: HostedAction[];
  mechanism: string;
  commitsEffect: boolean;
}

/**
 * A process announces (and renews) the tools it runs itself and what it can do for their calls: until `expiresAt`
 * the engine sends it its questions about them (ToolRequest). One row per tool and host; a repeat renews it.
 */
export async function registerToolHost(database: Database, input: { hostId: string; principalId: string; tools: HostedToolInput[]; leaseMs: number }) {
  const expiresAt = new Date(Date.now() + input.leaseMs);
  for (const tool of input.tools) {
    await database.prisma.toolHost.upsert({
      where: { toolName_hostId: { toolName: tool.name, hostId: input.hostId } },
      create: {
        hostId: input.hostId,
        toolName: tool.name,
        principalId: input.principalId,
        capabilities: capabilitiesOf(tool) as never,
        risk: tool.risk,
        expiresAt,
      },
      update: { principalId: input.principalId, capabilities: capabilitiesOf(tool) as never, risk: tool.risk, expiresAt },
    });
  }
  return { hostId: input.hostId, tools: input.tools.map((t) => t.name), expiresAt };
}

const capabilitiesOf = (tool: HostedToolInput): HostedCapabilities => ({
  actions: tool.capabilities,
  mechanism: tool.mechanism,
  commitsEffect: tool.commitsEffect,
});
