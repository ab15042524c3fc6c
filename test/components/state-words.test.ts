import { describe, expect, it } from "vitest";
import { EMPTY_WORDS, loadWords, SESSION_ENDED, STATE_SUBJECTS, type StateSubject } from "../../components/state-words";

describe("the states' words (one place for every page)", () => {
  it("every subject's loading and failed sentences name it, so two pages never say the same thing differently", () => {
    for (const subject of Object.keys(STATE_SUBJECTS) as StateSubject[]) {
      const words = loadWords(subject);
      expect(words.loading.endsWith("…")).toBe(true);
      if (subject !== "audit") {
        expect(words.loading).toBe(`Loading ${STATE_SUBJECTS[subject]}…`);
        expect(words.failed).toBe(`Could not load ${STATE_SUBJECTS[subject]}`);
      }
    }
  });

  it("a refresh that failed keeps the server's clause once, without doubled punctuation, and says what is still shown", () => {
    expect(loadWords("taskList").stale("The ledger is not reachable right now.")).toBe(
      "Could not refresh the task list (The ledger is not reachable right now); showing what was loaded before.",
    );
  });

  it("a session that ended says so and how to come back — never a raw refusal", () => {
    expect(SESSION_ENDED.title).toBe("Your session ended — sign in again");
    expect(SESSION_ENDED.action).toBe("Sign in again");
  });

  it("every empty state has a title", () => {
    for (const words of Object.values(EMPTY_WORDS)) expect(words.title.length).toBeGreaterThan(0);
  });
});
