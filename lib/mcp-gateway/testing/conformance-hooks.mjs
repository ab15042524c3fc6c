// Node 20 support for @modelcontextprotocol/conformance (its bundle imports fs.globSync, which Node 22 added).
// globSync is used only by its "tier-check" report, never by the server scenarios: the import is replaced by a
// stub that says so if it is ever reached. Loaded with --import ./conformance-register.mjs.
export async function load(url, context, next) {
  const result = await next(url, context);
  if (url.includes("/@modelcontextprotocol/conformance/dist/") && result.source) {
    const source = String(result.source);
    if (source.includes("globSync as o,")) {
      return { ...result, source: `${source.replace("globSync as o,", "")}\nfunction o(){throw new Error("fs.globSync needs Node 22 (only the tier-check command uses it)");}\n` };
    }
  }
  return result;
}
