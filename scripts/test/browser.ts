import { spawn, spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { DEBIAN_CHROMIUM, isExecutable, NPM_BROWSER_DIR, NPM_CHROMIUM } from "./browser-path";

/**
 * `npm test`'s browser set-up: finds or gets the Chromium the e2e suite and bench:stop-ui need, and says in one
 * line what it did — or exactly what it needs when it cannot:
 *   - STOPLINE_CHROMIUM, if set, is used as it is (and must be an executable file);
 *   - Debian's Chromium at /usr/bin/chromium, if installed;
 *   - else, when this process may install packages (root, or passwordless sudo) and apt-get exists:
 *     `apt-get install -y chromium` (after `apt-get update`);
 *   - else the Chromium build shipped inside the npm package @sparticuz/chromium (a brotli archive, unpacked into
 *     output/browser/ with the few libraries it needs), fetched with `npm install --prefix output/browser`.
 */
export const NPM_BROWSER_PACKAGE = "@sparticuz/chromium@153.0.0";

export type InstallRight = "root" | "sudo" | null;

export interface BrowserFacts {
  configured: string | undefined;
  configuredExecutable: boolean;
  debian: boolean;
  npmBuild: boolean;
  installRight: InstallRight;
  aptGet: boolean;
}

export type BrowserStep =
  | { kind: "use"; path: string; line: string }
  | { kind: "apt"; sudo: boolean }
  | { kind: "npm"; why: string }
  | { kind: "none"; line: string };

/** What to do, from what this machine has (pure: the table test of test/scripts/test/browser.test.ts). */
export function planBrowser(f: BrowserFacts): BrowserStep {
  if (f.configured) {
    return f.configuredExecutable
      ? { kind: "use", path: f.configured, line: `browser: ${f.configured} (STOPLINE_CHROMIUM)` }
      : { kind: "none", line: `browser: STOPLINE_CHROMIUM=${f.configured} is not an executable file — point it at a Chromium or Chrome binary, or unset it` };
  }
  if (f.debian) return { kind: "use", path: DEBIAN_CHROMIUM, line: `browser: Debian's Chromium, ${DEBIAN_CHROMIUM} (already installed)` };
  if (f.installRight && f.aptGet) return { kind: "apt", sudo: f.installRight === "sudo" };
  if (f.npmBuild)
    return { kind: "use", path: NPM_CHROMIUM, line: `browser: the Chromium of ${NPM_BROWSER_PACKAGE}, ${rel(NPM_CHROMIUM)} (unpacked by an earlier run)` };
  return { kind: "npm", why: !f.aptGet ? "no apt-get on this machine" : "not root and no passwordless sudo, so Debian's Chromium cannot be installed" };
}

export interface BrowserResult {
  /** The executable to launch, or null: then `line` says what is needed. */
  path: string | null;
  line: string;
}

export async function ensureBrowser(): Promise<BrowserResult> {
  const configured = process.env.STOPLINE_CHROMIUM || undefined;
  const facts: BrowserFacts = {
    configured,
    configuredExecutable: configured ? isExecutable(configured) : false,
    debian: isExecutable(DEBIAN_CHROMIUM),
    npmBuild: isExecutable(NPM_CHROMIUM),
    installRight: installRight(),
    aptGet: onPath("apt-get"),
  };
  let step = planBrowser(facts);
  if (step.kind === "use") return { path: step.path, line: step.line };
  if (step.kind === "none") return { path: null, line: step.line };
  if (step.kind === "apt") {
    const started = Date.now();
    const how = step.sudo ? "with sudo" : "as root";
    const failure = await aptInstallChromium(step.sudo);
    if (!failure && isExecutable(DEBIAN_CHROMIUM)) {
      return {
        path: DEBIAN_CHROMIUM,
        line: `browser: installed Debian's Chromium with apt-get ${how} (${Math.round((Date.now() - started) / 1000)} s), ${DEBIAN_CHROMIUM}`,
      };
    }
    step = { kind: "npm", why: `apt-get install chromium failed (${failure ?? `${DEBIAN_CHROMIUM} still missing`})` };
  }
  const started = Date.now();
  const failure = await unpackNpmChromium();
  if (!failure) {
    return {
      path: NPM_CHROMIUM,
      line: `browser: ${step.why}; using the Chromium shipped in the npm package ${NPM_BROWSER_PACKAGE}, unpacked to ${rel(NPM_CHROMIUM)} (${Math.round((Date.now() - started) / 1000)} s)`,
    };
  }
  return {
    path: null,
    line:
      `browser: none — the e2e suite and bench:stop-ui need Chromium (${step.why}; the npm package ${NPM_BROWSER_PACKAGE} could not be used: ${failure}). ` +
      `Install it with \`sudo apt-get install -y chromium\`, or set STOPLINE_CHROMIUM=/path/to/chromium`,
  };
}

function installRight(): InstallRight {
  if (process.getuid?.() === 0) return "root";
  if (!onPath("sudo")) return null;
  return spawnSync("sudo", ["-n", "true"], { stdio: "ignore", timeout: 10_000 }).status === 0 ? "sudo" : null;
}

function onPath(command: string): boolean {
  return spawnSync("sh", ["-c", `command -v ${command}`], { stdio: "ignore" }).status === 0;
}

/** Runs a command with its output kept (shown only when it fails); resolves to an error text or null. */
function quietly(command: string, args: string[], env: NodeJS.ProcessEnv = process.env, cwd?: string): Promise<string | null> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { env, cwd, stdio: ["ignore", "pipe", "pipe"] });
    const output: string[] = [];
    const keep = (chunk: Buffer) => {
      output.push(chunk.toString());
      if (output.length > 200) output.shift();
    };
    child.stdout.on("data", keep);
    child.stderr.on("data", keep);
    child.once("error", (error) => resolve(`${command}: ${error.message}`));
    child.once("exit", (code) => {
      if (code === 0) return resolve(null);
      process.stderr.write(output.join(""));
      resolve(`${[command, ...args].join(" ")} exited with ${code}`);
    });
  });
}

async function aptInstallChromium(sudo: boolean): Promise<string | null> {
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  const run = (args: string[]) =>
    sudo ? quietly("sudo", ["-n", "env", "DEBIAN_FRONTEND=noninteractive", "apt-get", ...args], env) : quietly("apt-get", args, env);
  return (await run(["update", "-qq"])) ?? (await run(["install", "-y", "-qq", "--no-install-recommends", "chromium"]));
}

/**
 * Fetches @sparticuz/chromium into output/browser/ (its own prefix: the project's node_modules and lock file are
 * not touched), unpacks its build there and writes output/browser/chromium, a wrapper that puts the libraries
 * the build brings (NSS, NSPR, expat) on its library path. The package decides what to unpack only on Amazon
 * Linux; AWS_LAMBDA_JS_RUNTIME makes it include those libraries here too.
 */
export async function unpackNpmChromium(): Promise<string | null> {
  rmSync(NPM_BROWSER_DIR, { recursive: true, force: true });
  const unpacked = path.join(NPM_BROWSER_DIR, "build");
  mkdirSync(unpacked, { recursive: true });
  const installed = await quietly("npm", [
    "install",
    "--prefix",
    NPM_BROWSER_DIR,
    "--no-save",
    "--no-package-lock",
    "--no-audit",
    "--no-fund",
    "--loglevel=error",
    NPM_BROWSER_PACKAGE,
  ]);
  if (installed) return installed;
  const resolver = `import("@sparticuz/chromium").then(async (m) => { process.stdout.write(await m.default.executablePath()); })`;
  const result = spawnSync(process.execPath, ["--input-type=module", "-e", resolver], {
    cwd: NPM_BROWSER_DIR,
    env: { ...process.env, TMPDIR: unpacked, AWS_LAMBDA_JS_RUNTIME: "nodejs20.x" },
    encoding: "utf8",
    timeout: 120_000,
  });
  const binary = result.stdout?.trim();
  if (result.status !== 0 || !binary || !isExecutable(binary))
    return `unpacking it failed: ${(result.stderr || result.error?.message || "no executable").trim().split("\n").at(-1)}`;
  writeFileSync(
    NPM_CHROMIUM,
    [
      "#!/bin/sh",
      "# Written by npm test (scripts/test/browser.ts): the Chromium build of the npm package @sparticuz/chromium.",
      `export LD_LIBRARY_PATH="${path.join(unpacked, "al2023", "lib")}\${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"`,
      `export FONTCONFIG_PATH="${path.join(unpacked, "fonts")}"`,
      `exec "${binary}" "$@"`,
      "",
    ].join("\n"),
  );
  chmodSync(NPM_CHROMIUM, 0o755);
  const version = spawnSync(NPM_CHROMIUM, ["--version"], { encoding: "utf8", timeout: 30_000 });
  if (version.status !== 0) return `the unpacked build does not start: ${(version.stderr || version.stdout || "").trim().split("\n").at(-1)}`;
  return null;
}

const rel = (p: string) => path.relative(process.cwd(), p) || p;
