import { register } from "node:module";
register(new URL("./conformance-hooks.mjs", import.meta.url));
