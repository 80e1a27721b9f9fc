import { describe, expect, it } from "vitest";
import { hooksInstalled, hooksUninstalled } from "../../src/integrations/host/install-outcome.js";

describe("install outcomes: one wording for every host, each path quoted", () => {
  it("names the hooks, the file and the command when something changed, else that nothing changed", () => {
    const added = hooksInstalled(
      { changed: true, file: "/h/.qwen/settings.json", command: "node /x/hook.cjs hook qwen" },
      "the Qwen Code hooks (A, B)",
      { a: 1 },
      ["note"],
    );
    expect(added).toEqual({
      changed: true,
      command: "node /x/hook.cjs hook qwen",
      json: { a: 1 },
      lines: ["agentsmd: added the Qwen Code hooks (A, B) in /h/.qwen/settings.json", "  command: node /x/hook.cjs hook qwen"],
      notes: ["note"],
    });
    expect(hooksInstalled({ changed: false, file: "/h/s.json" }, "hooks", {}).lines).toEqual([
      "agentsmd: /h/s.json already has the agentsmd hooks; nothing changed",
    ]);
    expect(hooksUninstalled({ changed: true, file: "/h/s.json" }, {}).lines).toEqual(["agentsmd: removed the agentsmd hooks from /h/s.json"]);
    expect(hooksUninstalled({ changed: false, file: "/h/s.json" }, {}).lines).toEqual(["agentsmd: no agentsmd hooks in /h/s.json; nothing changed"]);
  });

  it("quotes a path or command holding control characters or spaces, so the terminal shows what is there", () => {
    const file = "/h/evil\u001b[2J dir/settings.json";
    const lines = [...hooksInstalled({ changed: true, file, command: "a\nb" }, "hooks", {}).lines, ...hooksUninstalled({ changed: true, file }, {}).lines];
    for (const line of lines) {
      expect(line).not.toContain("\u001b");
      expect(line).not.toContain("\n");
    }
  });
});
