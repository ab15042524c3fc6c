// Loaded with `node --import` in a Node 22 process (test/lib/sdk/ai7.int.test.ts): bare imports of the AI SDK ("ai",
// "ai/test", "@ai-sdk/*") resolve to AI SDK 7 in tools/node22/node_modules instead of the app's AI SDK 6 — the rest
// (the SDK, the example agent, zod, tsx) stays the app's. Nothing else is redirected.
import { register } from "node:module";

const TOOLS = new URL("../../../tools/node22/package.json", import.meta.url).href;
register(
  `data:text/javascript,${encodeURIComponent(`
    export async function resolve(specifier, context, next) {
      if (specifier === "ai" || specifier.startsWith("ai/") || specifier.startsWith("@ai-sdk/")) return next(specifier, { ...context, parentURL: ${JSON.stringify(TOOLS)} });
      return next(specifier, context);
    }
  `)}`,
);
