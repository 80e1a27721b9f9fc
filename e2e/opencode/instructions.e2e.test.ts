/**
 * Proof that preset opencode reads OpenCode's own `instructions` setting as OpenCode 1.18.33 does:
 * with `instructions` set in the global config, the project's opencode.json, a
 * `.opencode/opencode.json`, `$OPENCODE_CONFIG` and `$OPENCODE_CONFIG_DIR` (plain paths, globs, `~/`,
 * absolute globs, a URL, `{env:…}`), `agentsmd show --preset opencode` equals, byte for byte, the
 * instruction part of the system prompt the real OpenCode sends at every step; and
 * `--no-agent-config` equals what OpenCode sends without those settings (a second run on the same
 * trees with the settings removed).
 *
 * Run: npm run build && npx vitest run -c vitest.e2e.config.ts e2e/opencode/instructions
 */
import { rm } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { assertAgentsmdBuilt } from "../lib/agentsmd.js";
import { familyFixtures } from "../lib/opencode-family.js";
import { OPENCODE_HOST, OPENCODE_VERSION } from "./harness.js";
import { check, reset, runStates, type State } from "./system-prompt.js";

const newFixture = familyFixtures(OPENCODE_HOST, [assertAgentsmdBuilt]);

describe(`preset opencode reads OpenCode ${OPENCODE_VERSION}'s instructions setting`, () => {
  it("global, project and .opencode configs: files, globs (nearest directory first, listing order, down one chain of directories), ~/, absolute, URL, {env:}; --no-agent-config = OpenCode without them", async () => {
    const options = { config: {} as Record<string, unknown>, homeFiles: {} as Record<string, string> };
    const fixture = await newFixture(options);
    const base = fixture.base;
    const instructions = ["CONTRIBUTING.md", "docs/*.md", "guides/**/*.md", "http://127.0.0.1:9/unreachable.md", "AGENTS.md", "missing/*.md"];
    options.config = { instructions };
    // `~/`, absolute paths outside the project and `{env:}` in the user's own global config: agentsmd
    // reads them as OpenCode does there (a repository's config may name nothing outside the project
    // and gets no `{env:}` values: test/security/config-confinement.test.ts).
    const own = ["global-rules.md", "~/notes/*.md", `${base}/shared/*.md`, "{env:AGENTSMD_E2E_RULES}.md"];
    const settings: State["files"] = {
      "home/.config/opencode/opencode.json": JSON.stringify({ $schema: "https://opencode.ai/config.json", instructions: own }),
      "repo/.opencode/opencode.json": JSON.stringify({ $schema: "https://opencode.ai/config.json", instructions: ["dot-opencode.md", "CONTRIBUTING.md"] }),
    };
    const states: State[] = [
      {
        name: "every kind of entry",
        files: {
          ...settings,
          "repo/AGENTS.md": "ROOT-AG\n",
          "repo/CONTRIBUTING.md": "CONTRIB-ROOT\n",
          "repo/docs/z.md": "DOC-Z\n",
          "repo/docs/a.md": "DOC-A\n",
          "repo/docs/m.md": "DOC-M\n",
          "repo/docs/k.md": "DOC-K\n",
          "repo/docs/.dot.md": "DOC-DOT\n",
          "repo/pkg/sub/docs/near.md": "DOC-NEAR\n",
          "repo/guides/x.md": "GUIDE-X\n",
          "repo/guides/deep/y.md": "GUIDE-Y\n",
          "repo/guides/deep/deeper/w.md": "GUIDE-W\n",
          "home/notes/n.md": "HOME-NOTE\n",
          "shared/s1.md": "SHARED-1\n",
          "shared/s2.md": "SHARED-2\n",
          "shared/.hidden.md": "SHARED-HIDDEN\n",
          "repo/team-rules.md": "TEAM-RULES\n",
          "repo/global-rules.md": "GLOBAL-RULES\n",
          "repo/dot-opencode.md": "DOT-OPENCODE\n",
        },
        has: ["CONTRIB-ROOT", "DOC-Z", "DOC-NEAR", "GUIDE-W", "HOME-NOTE", "SHARED-1", "TEAM-RULES", "GLOBAL-RULES", "DOT-OPENCODE", "DOC-DOT"],
        hasNot: ["SHARED-HIDDEN"],
      },
      {
        name: "files found upward, nearest first; an empty file dropped, a blank one kept",
        files: { "repo/CONTRIBUTING.md": null, "repo/pkg/CONTRIBUTING.md": "CONTRIB-PKG\n", "repo/docs/a.md": "", "repo/docs/m.md": " \n" },
        has: ["CONTRIB-PKG"],
        hasNot: ["CONTRIB-ROOT", "DOC-A"],
      },
      {
        name: "a listed file that is also a project file keeps its project place",
        files: { "repo/pkg/sub/AGENTS.md": "SUB-AG\n", "repo/CONTRIBUTING.md": "CONTRIB-ROOT-2\n" },
        has: ["SUB-AG", "CONTRIB-ROOT-2", "CONTRIB-PKG"],
      },
    ];
    const env = { AGENTSMD_E2E_RULES: "team-rules" };
    const withSettings = await runStates(fixture, "pkg/sub", states, env, { withoutAgentConfig: true });
    check(withSettings);
    // Each entry once, in OpenCode's order (not sorted: the listing order of the file system).
    expect(withSettings[0]!.sent.indexOf("GLOBAL-RULES")).toBeLessThan(withSettings[0]!.sent.indexOf("CONTRIB-ROOT"));
    expect(withSettings[0]!.sent.indexOf("DOC-NEAR")).toBeLessThan(withSettings[0]!.sent.indexOf("DOC-Z"));
    expect(withSettings[0]!.sent.split("Instructions from: ").length - 1).toBe(new Set(withSettings[0]!.sent.match(/Instructions from: .*/g)).size);

    // The same trees without the settings: what --no-agent-config showed.
    options.config = {};
    await reset(base, states);
    for (const rel of Object.keys(settings)) await rm(path.join(base, rel), { force: true });
    const statesWithout = states.map((state) => ({
      name: state.name,
      files: Object.fromEntries(Object.entries(state.files).filter(([rel]) => !(rel in settings))),
    }));
    const bare = await runStates(fixture, "pkg/sub", statesWithout, env);
    for (const [index, step] of bare.entries()) {
      expect(withSettings[index]!.shownWithout, `${step.state.name}: --no-agent-config = OpenCode without the settings`).toBe(step.sent);
      expect(step.sent).not.toContain("CONTRIB");
    }
  });

  it("$OPENCODE_CONFIG and $OPENCODE_CONFIG_DIR (JSONC, its AGENTS.md as the global file); outside a git repository relative globs reach /", async () => {
    const fixture = await newFixture({ git: false, files: { "app/.keep": "" } });
    const base = fixture.base;
    const states: State[] = [
      {
        name: "custom config file and config dir",
        files: {
          "custom.json": JSON.stringify({ instructions: ["custom/*.md", "ocdir-rule.md"] }),
          "ocdir/opencode.jsonc": '// OpenCode allows comments\n{\n  "instructions": ["from-dir/*.md",],\n}\n',
          "ocdir/AGENTS.md": "OCDIR-GLOBAL\n",
          "home/.config/opencode/AGENTS.md": "XDG-GLOBAL-X\n",
          "repo/custom/c1.md": "CUSTOM-1\n",
          "custom/c0.md": "CUSTOM-ABOVE\n",
          "repo/app/from-dir/d.md": "FROM-DIR\n",
          "repo/ocdir-rule.md": "OCDIR-RULE\n",
          "repo/app/AGENTS.md": "APP-AG\n",
        },
        has: ["OCDIR-GLOBAL", "CUSTOM-1", "CUSTOM-ABOVE", "FROM-DIR", "OCDIR-RULE", "APP-AG"],
        hasNot: ["XDG-GLOBAL-X"],
      },
    ];
    const env = { OPENCODE_CONFIG: path.join(base, "custom.json"), OPENCODE_CONFIG_DIR: path.join(base, "ocdir") };
    check(await runStates(fixture, "app", states, env));
  });
});
