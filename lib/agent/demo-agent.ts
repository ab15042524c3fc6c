import { demoServicesUrl } from "../runtime/background";
import { shopPrices, type AgentOptions } from "./conversation";

/** The demo agent as the app runs it: prices come from the demo shop that npm start runs. */
export const demoAgent = (): AgentOptions => ({ prices: shopPrices(demoServicesUrl()) });
