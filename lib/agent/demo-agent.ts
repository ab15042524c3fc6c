import { demoServicesUrl } from "../runtime/background";
import { shopPrices, type AgentOptions } from "./conversation";
import { agentModelFromEnvironment, MODEL_REPLY_TOOL } from "./model-reply";

/**
 * The demo agent as the app runs it: prices come from the demo shop that npm start runs; the reply is
 * written by a real model when STOPLINE_AGENT_MODEL is set (lib/agent/model-reply.ts), else by the demo
 * inference service.
 */
export const demoAgent = (): AgentOptions => ({
  prices: shopPrices(demoServicesUrl()),
  replyTool: agentModelFromEnvironment() ? MODEL_REPLY_TOOL : "inference.generate",
});
