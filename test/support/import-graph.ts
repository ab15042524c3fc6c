import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";

/**
 * The repository's import graph, read from the sources as text (relative and "@/" imports, static, type-only,
 * dynamic and require), for the architecture tests. Hand-written: dependency-cruiser needs Node 22 and madge
 * TypeScript 5; this reads the ~700 files in well under a second.
 */

export const ROOT = path.resolve(import.meta.dirname, "../..");

/** Removes comments, keeping strings (and template literals) intact, so commented-out imports do not count. */
export function stripComments(source: string): string {
  let out = "";
  let i = 0;
  let quote: string | null = null;
  while (i < source.length) {
    const c = source[i];
    const next = source[i + 1];
    if (quote) {
      out += c;
      if (c === "\\") {
        out += next ?? "";
        i += 2;
        continue;
      }
      if (c === quote) quote = null;
      i++;
      continue;
    }
    if (c === "/" && next === "/") {
      while (i < source.length && source[i] !== "\n") i++;
      continue;
    }
    if (c === "/" && next === "*") {
      const end = source.indexOf("*/", i + 2);
      i = end < 0 ? source.length : end + 2;
      out += " ";
      continue;
    }
    if (c === '"' || c === "'" || c === "`") quote = c;
    out += c;
    i++;
  }
  return out;
}

/** Every module specifier a TypeScript source imports or re-exports (static, type-only, dynamic, require). */
export function importSpecifiers(source: string): { specifiers: string[]; nonLiteral: number } {
  const code = stripComments(source);
  const specifiers: string[] = [];
  const statement = /(?:^|[;\s}])(?:import|export)\s+(?:type\s+)?(?:[\w*{}\s,$]+?\s+from\s*)?["']([^"'\n]+)["']/g;
  const dynamic = /\b(?:import|require)\s*\(\s*["']([^"'\n]+)["']\s*\)/g;
  for (const m of code.matchAll(statement)) specifiers.push(m[1]);
  for (const m of code.matchAll(dynamic)) specifiers.push(m[1]);
  const nonLiteral = [...code.matchAll(/\b(?:import|require)\s*\(\s*(?!["'])/g)].length;
  return { specifiers, nonLiteral };
}

/** The file a relative or "@/" specifier names, or null. */
export function resolveLocal(fromFile: string, specifier: string): string | null {
  const base = specifier.startsWith("@/") ? path.join(ROOT, specifier.slice(2)) : path.resolve(path.dirname(fromFile), specifier);
  for (const candidate of [base, `${base}.ts`, `${base}.tsx`, path.join(base, "index.ts"), path.join(base, "index.tsx")]) {
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  }
  return null;
}

export const relative = (file: string) => path.relative(ROOT, file).split(path.sep).join("/");

/** Every .ts/.tsx source in `paths` (folders or files, relative to the root), generated code and dependencies left out. */
export function sourceFiles(paths: string[]): string[] {
  const out: string[] = [];
  const visit = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        if (entry.name === "node_modules" || entry.name === "generated" || entry.name.startsWith(".")) continue;
        visit(full);
      } else if (/\.tsx?$/.test(entry.name) && !entry.name.endsWith(".d.ts")) out.push(full);
    }
  };
  for (const p of paths) {
    const full = path.join(ROOT, p);
    if (!existsSync(full)) continue;
    if (statSync(full).isFile()) out.push(full);
    else visit(full);
  }
  return out;
}

/** file → the local files it imports (relative paths). */
export function importGraph(files: string[]): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const targets = new Set<string>();
    for (const specifier of importSpecifiers(readFileSync(file, "utf8")).specifiers) {
      if (!specifier.startsWith(".") && !specifier.startsWith("@/")) continue;
      const target = resolveLocal(file, specifier);
      if (target) targets.add(relative(target));
    }
    graph.set(relative(file), [...targets].sort());
  }
  return graph;
}

/** The import cycles: each strongly connected component of more than one file (or a file importing itself), sorted. */
export function importCycles(graph: Map<string, string[]>): string[][] {
  // Tarjan's algorithm, iterative (deep graphs would overflow the stack).
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const cycles: string[][] = [];
  for (const start of graph.keys()) {
    if (index.has(start)) continue;
    const work: { node: string; edge: number }[] = [{ node: start, edge: 0 }];
    index.set(start, next);
    low.set(start, next++);
    stack.push(start);
    onStack.add(start);
    while (work.length) {
      const frame = work[work.length - 1];
      const edges = graph.get(frame.node) ?? [];
      if (frame.edge < edges.length) {
        const to = edges[frame.edge++];
        if (!graph.has(to)) continue;
        if (!index.has(to)) {
          index.set(to, next);
          low.set(to, next++);
          stack.push(to);
          onStack.add(to);
          work.push({ node: to, edge: 0 });
        } else if (onStack.has(to)) low.set(frame.node, Math.min(low.get(frame.node)!, index.get(to)!));
        continue;
      }
      work.pop();
      if (work.length) {
        const parent = work[work.length - 1].node;
        low.set(parent, Math.min(low.get(parent)!, low.get(frame.node)!));
      }
      if (low.get(frame.node) === index.get(frame.node)) {
        const component: string[] = [];
        let member: string;
        do {
          member = stack.pop()!;
          onStack.delete(member);
          component.push(member);
        } while (member !== frame.node);
        if (component.length > 1 || edges.includes(frame.node)) cycles.push(component.sort());
      }
    }
  }
  return cycles.sort((a, b) => a[0].localeCompare(b[0]));
}
