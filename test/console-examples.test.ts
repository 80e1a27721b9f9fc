/**
 * The docs' console-example form (test/helpers/console-examples.ts): what counts as a command and
 * its output, and the errors that name the line and the fix.
 */
import { describe, expect, it } from "vitest";
import { consoleExamples, mapArgument, normaliseOutput } from "./helpers/console-examples.js";

const fence = "```";

describe("console examples in markdown", () => {
  it("reads each $ agentsmd line as a command and the lines up to the next as its exact output", () => {
    const text = [`${fence}console`, "$ agentsmd --cwd 'a b' root", "/x/a b", "", "$ agentsmd paths", fence, "", `${fence}sh`, "$ npm test", fence].join("\n");
    expect(consoleExamples("f.md", text)).toEqual([
      {
        file: "f.md",
        line: 1,
        commands: [
          { line: 2, argv: ["--cwd", "a b", "root"], expected: "/x/a b\n" },
          { line: 5, argv: ["paths"], expected: "" },
        ],
      },
    ]);
  });

  it("never runs other block types, even a console line inside them", () => {
    const text = [`${fence}text`, `${fence}console`, "$ agentsmd root", fence, `${fence}sh`, "$ agentsmd install codex", fence].join("\n");
    expect(consoleExamples("f.md", text)).toEqual([]);
  });

  it("refuses a command other than agentsmd, a shell operator, text before the first command, and an unclosed block, naming the line", () => {
    expect(() => consoleExamples("f.md", [`${fence}console`, "$ npm test", fence].join("\n"))).toThrow(/f\.md:2: .*```sh block/);
    expect(() => consoleExamples("f.md", [`${fence}console`, "$ agentsmd show | head", fence].join("\n"))).toThrow(/f\.md:2: .*plain words/);
    expect(() => consoleExamples("f.md", [`${fence}console`, "output", "$ agentsmd show", fence].join("\n"))).toThrow(/f\.md:2: /);
    expect(() => consoleExamples("f.md", [`${fence}console`, "$ agentsmd show"].join("\n"))).toThrow(/f\.md:1: .*never closed/);
  });

  it("maps ~/ arguments into the example's scratch directory and prints the repository as /…", () => {
    const normalise = { repo: "/r/repo", scratch: "/var/s1" };
    expect(mapArgument("~/s.json", normalise)).toBe("/var/s1/s.json");
    expect(mapArgument("/tmp/s.json", normalise)).toBe("/tmp/s.json");
    expect(mapArgument("examples/monorepo", normalise)).toBe("examples/monorepo");
    expect(normaliseOutput("- /r/repo/AGENTS.md (mtime: 1795315888108)\n/var/s1/s.json\n", normalise)).toBe("- /…/AGENTS.md (mtime: <mtime>)\n~/s.json");
  });
});
