/**
 * Presets as plain data: the renderer is a value of the preset, so a caller's own preset brings
 * its own (or a built-in one) through `registerPreset`, and its named slots steer a session like a
 * built-in preset's do.
 */
import { describe, expect, it } from "vitest";
import { createTree } from "../helpers/tree.js";
import { createSession, restoreSession } from "../../src/session/session.js";
import { getPreset, getRenderer, presetNames, registerPreset, PRESETS } from "../../src/presets/table.js";
import { codeliaPreset, SPEC_STARTUP, type Preset } from "../../src/presets/preset.js";
import type { Renderer } from "../../src/core/render.js";
import { ConfigError } from "../../src/core/errors.js";

const shouting: Renderer = {
  initial: ({ blocks }) => (blocks.length === 0 ? "" : `LOUD ${blocks.map((block) => block.content.trim().toUpperCase()).join(" | ")}`),
  inline: (blocks) => blocks.map((block) => `LOUD INLINE ${block.content.trim().toUpperCase()}`).join("\n"),
};

function register(preset: Preset): void {
  if (!presetNames().includes(preset.name)) registerPreset(preset);
}

describe("preset table", () => {
  it("a caller's preset supplies its own renderer as a value: the initial message, inline blocks and a restored session use it", async () => {
    register({ ...codeliaPreset, name: "test-shouting", renderer: shouting });
    const tree = await createTree({ ".git/": null, "AGENTS.md": "root rules\n", "pkg/AGENTS.md": "pkg rules\n", "pkg/a.ts": "" });
    const session = await createSession({ cwd: tree.root, home: tree.home, env: {}, preset: "test-shouting" });
    expect(session.initialMessage).toBe("LOUD ROOT RULES");
    expect(session.renderer).toBe(shouting);
    expect(session.renderInline(await session.touch([tree.path("pkg/a.ts")]))).toBe("LOUD INLINE PKG RULES");
    const { session: restored } = await restoreSession(session.snapshot(), { home: tree.home, env: {} });
    expect(restored.renderInline([{ path: tree.path("pkg/AGENTS.md"), layer: "path", mtimeMs: 0, sizeBytes: 1, content: "x", truncated: false }])).toBe(
      "LOUD INLINE X",
    );
    expect(getRenderer("test-shouting")).toBe(shouting);
  });

  it("a caller's preset can borrow a built-in renderer by value, and its named slots steer the session", async () => {
    register({ ...codeliaPreset, name: "test-codex-framed", renderer: getRenderer("codex"), startup: { ...SPEC_STARTUP, dirs: "root" } });
    const tree = await createTree({ ".git/": null, "AGENTS.md": "root rules\n", "pkg/AGENTS.md": "pkg rules\n" });
    const session = await createSession({ cwd: tree.path("pkg"), home: tree.home, env: {}, preset: "test-codex-framed" });
    expect(session.initialMessage.startsWith(`# AGENTS.md instructions for ${tree.path("pkg")}`)).toBe(true);
    // startup.dirs "root": the root's file only, pkg/ waits for a touch.
    expect(session.initialFiles.map((file) => file.path)).toEqual([tree.path("AGENTS.md")]);
  });

  it("getRenderer names every preset when the name is unknown; a built-in name cannot be registered again", () => {
    let error: unknown;
    try {
      getRenderer("no-such-preset");
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).message).toContain('"no-such-preset"');
    expect((error as ConfigError).fix).toContain("codelia, codex");
    expect(() => registerPreset({ ...codeliaPreset })).toThrow(ConfigError);
  });

  it("every built-in preset carries its renderer and every slot whole (no default looked up elsewhere)", () => {
    for (const [name, preset] of PRESETS) {
      expect(getPreset(name)).toBe(preset);
      expect(typeof preset.renderer.initial, name).toBe("function");
      expect(typeof preset.renderer.inline, name).toBe("function");
      expect(Object.keys(preset.scope).sort(), name).toEqual(["nested", "noMarker", "rootAt", "touchOrder"]);
      expect(Object.keys(preset.startup).sort(), name).toEqual(["dirs", "keep", "order", "probeErrors"]);
      expect(Object.keys(preset.text).sort(), name).toEqual(["blank", "cut", "skipBlank", "trim"]);
      expect(["path", "identity"], name).toContain(preset.dedupe);
    }
  });
});
