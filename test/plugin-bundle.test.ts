/**
 * The plugin bundles stay lean: OpenCode, Kilo Code and pi import `agentsmd/<host>` into their own
 * process (dist/plugin/<host>.js, scripts/build-plugins.mjs), so the bundle must hold no classic zod
 * (a schema class's methods installed on first use, every zod locale loaded), no CLI, commander, MCP
 * SDK, inspect or install code, no eagerly built public schemas, and only what its host runs: no
 * watcher in pi's, no shell reader in OpenCode's. Sizes, not times: `npm run bench` (plugin rows)
 * measures the import itself.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import * as z from "zod/mini";
import { ensureBuilt, REPO } from "./helpers/bin.js";

interface Metafile {
  outputs: Record<string, { bytes: number; inputs: Record<string, { bytesInOutput: number }> }>;
}
type Bundle = { modules: string[]; bytes: number };

const HOSTS = ["opencode", "kilo", "pi", "amp"] as const;

const FORBIDDEN = [
  /node_modules\/zod\/v4\/classic\//,
  /node_modules\/zod\/v4\/locales\/(?!en\.js$)/,
  /node_modules\/commander\//,
  /node_modules\/@modelcontextprotocol\//,
  /src\/cli\//,
  /src\/inspect\//,
  /src\/audit\//,
  /src\/hook\//,
  /src\/integrations\/setup\//,
  /src\/integrations\/registry\.ts$/,
  /src\/integrations\/[^/]+\/install(er)?\.ts$/,
  /src\/integrations\/host\/user-file\.ts$/,
  // The public schema module builds every schema when imported; plugins build the ones they parse.
  /src\/core\/schema\.ts$/,
];

async function bundled(host: string): Promise<Bundle> {
  const { bundlePlugin } = (await import(join(REPO, "scripts/build-plugins.mjs"))) as {
    bundlePlugin(o: { host: string; outfile: string; write: boolean }): Promise<{ metafile: Metafile }>;
  };
  const { metafile } = await bundlePlugin({ host, outfile: join(REPO, ".tmp", `plugin-test-${host}.js`), write: false });
  const output = Object.values(metafile.outputs).find((o) => Object.keys(o.inputs).length > 0)!;
  // inputs esbuild kept code of (a re-export it tree-shook away leaves an input of 0 bytes)
  return { modules: Object.keys(output.inputs).filter((input) => output.inputs[input]!.bytesInOutput > 0), bytes: output.bytes };
}

describe("plugin bundles", () => {
  const bundles = new Map<string, Bundle>();
  beforeAll(async () => {
    for (const host of HOSTS) bundles.set(host, await bundled(host));
  }, 120_000);

  it("hold no classic zod, CLI, MCP SDK, inspect, install code or eagerly built schemas", () => {
    for (const host of HOSTS) {
      const { modules } = bundles.get(host)!;
      expect(modules.some((input) => input.includes(`src/integrations/${host}/index.ts`))).toBe(true);
      expect(modules.some((input) => input.includes("node_modules/zod/v4/mini/"))).toBe(true);
      expect({ host, heavy: modules.filter((input) => FORBIDDEN.some((pattern) => pattern.test(input))) }).toEqual({ host, heavy: [] });
    }
  });

  it("hold only what their host runs: the watcher for OpenCode and Kilo (watch: true), the shell reader for Kilo, pi and Amp", () => {
    const has = (host: string, pattern: RegExp): boolean => bundles.get(host)!.modules.some((input) => pattern.test(input));
    const watcher = /src\/session\/watch\.ts$/;
    const shell = /src\/integrations\/host\/shell-paths\.ts$/;
    expect(HOSTS.map((host) => has(host, watcher))).toEqual([true, true, false, false]);
    expect(HOSTS.map((host) => has(host, shell))).toEqual([false, true, true, true]);
  });

  it("stay small: at most 105 modules and 240 KB each", () => {
    // 95 (OpenCode), 98 (Kilo), 97 (pi) modules; 197, 217, 219 KB when the bundles were made.
    for (const host of HOSTS) {
      const { modules, bytes } = bundles.get(host)!;
      expect({ host, modules: modules.length <= 105, bytes: bytes < 240 * 1024 }).toEqual({ host, modules: true, bytes: true });
    }
  });
});

describe("package entries", () => {
  beforeAll(ensureBuilt, 300_000);

  it("./opencode, ./server, ./kilo, ./pi and pi's manifest import the bundles, with tsc's types and the same exports", async () => {
    const pkg = JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as {
      exports: Record<string, { types: string; import: string }>;
      pi: { extensions: string[] };
    };
    const entries: Record<string, string> = { "./opencode": "opencode", "./server": "opencode", "./kilo": "kilo", "./pi": "pi" };
    for (const [key, host] of Object.entries(entries)) {
      expect(pkg.exports[key]).toEqual({ types: `./dist/integrations/${host}/index.d.ts`, import: `./dist/plugin/${host}.js` });
      const bundle = (await import(pathToFileURL(join(REPO, "dist/plugin", `${host}.js`)).href)) as Record<string, unknown>;
      const modules = (await import(pathToFileURL(join(REPO, "dist/integrations", host, "index.js")).href)) as Record<string, unknown>;
      expect(Object.keys(bundle).sort()).toEqual(Object.keys(modules).sort());
    }
    expect(pkg.pi.extensions).toEqual(["./dist/plugin/pi.js"]);
  }, 60_000);

  it("the bundles' option schemas parse as documented (docs/api.md) and give a JSON Schema", async () => {
    const opencode = (await import(pathToFileURL(join(REPO, "dist/plugin/opencode.js")).href)) as { OpenCodePluginOptionsSchema: z.ZodMiniType };
    const pi = (await import(pathToFileURL(join(REPO, "dist/plugin/pi.js")).href)) as {
      PiExtensionOptionsSchema: z.ZodMiniType;
      PiHookInputSchema: z.ZodMiniType;
    };
    expect(opencode.OpenCodePluginOptionsSchema.parse({ mode: "paths", maxFiles: 3 })).toEqual({ mode: "paths", maxFiles: 3 });
    expect(opencode.OpenCodePluginOptionsSchema.safeParse({ maxFiles: 0 }).error?.issues[0]?.message).toBe("Too small: expected number to be >0");
    expect(opencode.OpenCodePluginOptionsSchema.safeParse({ mood: 1 }).success).toBe(false);
    expect(pi.PiExtensionOptionsSchema.parse({ exclude: ["vendor"] })).toEqual({ exclude: ["vendor"] });
    expect(pi.PiHookInputSchema.parse({ kind: "tool", sessionId: "s", cwd: "/r" })).toEqual({ kind: "tool", sessionId: "s", cwd: "/r", targets: [] });
    const schema = z.toJSONSchema(opencode.OpenCodePluginOptionsSchema) as { properties: Record<string, unknown>; additionalProperties: unknown };
    expect(Object.keys(schema.properties)).toContain("watch");
    expect(schema.additionalProperties).toBe(false);
  }, 60_000);
});
