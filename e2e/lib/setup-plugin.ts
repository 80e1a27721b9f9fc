/**
 * `agentsmd setup <host>` for a plugin host, run by the built CLI against a fixture's HOME (the
 * route a user takes): returns the JSON report and checks setup installed and verified the host.
 */
import { expect } from "vitest";
import { runAgentsmd } from "./agentsmd.js";

/** What the e2e cases read of setup's JSON report. */
interface SetupAgent {
  id: string;
  changed?: boolean;
  changes: Array<{ file: string }>;
  verify?: { ok: boolean; module?: boolean; answer?: string; problem?: string };
}

/**
 * Runs `agentsmd --json setup <host>` with `env` (HOME and the XDG dirs of the fixture) and checks
 * it wrote one module and its check answered; returns that agent's report.
 * @example const agent = await setupPluginHost("kilo", { HOME: fx.home, XDG_CONFIG_HOME: fx.xdg.config, ... });
 */
export async function setupPluginHost(host: string, env: Record<string, string>): Promise<SetupAgent> {
  const run = await runAgentsmd(["--json", "setup", host], { env: { PATH: process.env.PATH ?? "/usr/bin:/bin", ...env }, timeoutMs: 60_000 });
  expect(run.code, run.stderr.toString() + run.stdout.toString()).toBe(0);
  const report = JSON.parse(run.stdout.toString()) as { agents: SetupAgent[] };
  const agent = report.agents.find((each) => each.id === host)!;
  expect(agent).toMatchObject({ changed: true, verify: { ok: true, module: true } });
  expect(agent.changes).toHaveLength(1);
  return agent;
}
