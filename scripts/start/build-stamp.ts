/**
 * Decides whether `next build` must run: it must when there is no build (`.next/BUILD_ID`), no stamp, or
 * any input of the build changed since the stamp was written. An input "changed" when it is new, gone, or
 * its modification time or size differs: this catches edits (a file newer than the build) and also
 * deletions and checkouts that move mtimes backwards, which a plain "newer than" test would miss.
 */
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync, mkdirSync } from "node:fs";
import path from "node:path";

/** Folders and files whose contents end up in the Next build. */
export const BUILD_INPUTS = [
  "app",
  "components",
  "lib",
  "public",
  "middleware.ts",
  "proxy.ts",
  "instrumentation.ts",
  "next.config.js",
  "next.config.mjs",
  "next.config.ts",
  "package.json",
  "package-lock.json",
  "tsconfig.json",
  "tsconfig.build.json",
  "postcss.config.mjs",
  "postcss.config.js",
  "tailwind.config.ts",
  "tailwind.config.js",
] as const;

/** Test files live next to the code but are not part of the build. */
const IGNORED = /(^|\/)(node_modules|\.next|\.git)(\/|$)|\.(test|spec)\.tsx?$/;

export const STAMP_FILE = path.join(".next", "stopline-build-stamp.json");

type Fingerprint = Record<string, string>;
type Stamp = { builtAt: string; files: Fingerprint };

/** `relative path → "mtimeMs:size"` for every build input under `root`. */
export function fingerprint(root: string, inputs: readonly string[] = BUILD_INPUTS): Fingerprint {
  const files: Fingerprint = {};
  const visit = (rel: string) => {
    if (IGNORED.test(rel)) return;
    let stat;
    try {
      stat = statSync(path.join(root, rel));
    } catch {
      return; // optional input that does not exist
    }
    if (stat.isDirectory()) {
      for (const entry of readdirSync(path.join(root, rel)).sort()) visit(path.posix.join(rel, entry));
    } else if (stat.isFile()) {
      files[rel] = `${Math.trunc(stat.mtimeMs)}:${stat.size}`;
    }
  };
  for (const input of inputs) visit(input);
  return files;
}

/** Why a build is needed, or null when the existing build is up to date. */
export function buildNeeded(root: string, inputs: readonly string[] = BUILD_INPUTS): string | null {
  if (!existsSync(path.join(root, ".next", "BUILD_ID"))) return "no build yet";
  let stamp: Stamp;
  try {
    stamp = JSON.parse(readFileSync(path.join(root, STAMP_FILE), "utf8")) as Stamp;
  } catch {
    return "no build stamp (built outside npm start?)";
  }
  const now = fingerprint(root, inputs);
  for (const [file, sig] of Object.entries(now)) {
    if (!(file in stamp.files)) return `${file} is new since the last build`;
    if (stamp.files[file] !== sig) return `${file} changed since the last build`;
  }
  for (const file of Object.keys(stamp.files)) if (!(file in now)) return `${file} was removed since the last build`;
  return null;
}

/** Records the inputs the build that just finished was made from. */
export function writeStamp(root: string, inputs: readonly string[] = BUILD_INPUTS) {
  const stamp: Stamp = { builtAt: new Date().toISOString(), files: fingerprint(root, inputs) };
  mkdirSync(path.join(root, ".next"), { recursive: true });
  writeFileSync(path.join(root, STAMP_FILE), JSON.stringify(stamp));
}
