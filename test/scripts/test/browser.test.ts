import { describe, expect, it } from "vitest";
import { planBrowser, type BrowserFacts } from "../../../scripts/test/browser";

const none: BrowserFacts = { configured: undefined, configuredExecutable: false, debian: false, npmBuild: false, installRight: null, aptGet: true };

describe("npm test's browser: what it does on each kind of machine", () => {
  it.each<[string, Partial<BrowserFacts>, ReturnType<typeof planBrowser>["kind"], RegExp | null]>([
    [
      "STOPLINE_CHROMIUM names a browser: that one",
      { configured: "/opt/chrome", configuredExecutable: true, debian: true },
      "use",
      /\/opt\/chrome \(STOPLINE_CHROMIUM\)/,
    ],
    [
      "STOPLINE_CHROMIUM names nothing runnable: says so, installs nothing",
      { configured: "/nope", installRight: "root" },
      "none",
      /STOPLINE_CHROMIUM=\/nope is not an executable file/,
    ],
    [
      "Debian's Chromium is there: used as it is",
      { debian: true, installRight: "root" },
      "use",
      /Debian's Chromium, \/usr\/bin\/chromium \(already installed\)/,
    ],
    ["root, nothing installed (a new machine, CI): apt-get", { installRight: "root" }, "apt", null],
    ["passwordless sudo: apt-get with sudo", { installRight: "sudo" }, "apt", null],
    [
      "no right to install, an earlier run unpacked the npm package's build: that one",
      { npmBuild: true },
      "use",
      /the Chromium of @sparticuz\/chromium@[\d.]+/,
    ],
    ["no right to install: the npm package's build", {}, "npm", null],
    ["root but no apt-get (not Debian): the npm package's build", { installRight: "root", aptGet: false }, "npm", null],
  ])("%s", (_, facts, kind, line) => {
    const step = planBrowser({ ...none, ...facts });
    expect(step.kind).toBe(kind);
    if (line) expect("line" in step ? step.line : "").toMatch(line);
    if (step.kind === "apt") expect(step.sudo).toBe(facts.installRight === "sudo");
    if (step.kind === "npm") expect(step.why).toMatch(facts.aptGet === false ? /no apt-get/ : /not root and no passwordless sudo/);
  });
});
