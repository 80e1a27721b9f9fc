/**
 * `agentsmd doctor [DIR]`: problems in a tree of instruction files, with a fix for each. Exit 1
 * when any finding is an error.
 */
import type { Command } from "commander";
import { countOf } from "../../core/words.js";
import { homedir } from "node:os";
import { doctor, formatReport } from "../../inspect/doctor.js";
import { AgentsMdError } from "../../core/errors.js";
import type { CommandContext } from "../context.js";
import { homeFromEnv } from "../../core/paths.js";

export function registerDoctor(program: Command, context: CommandContext): void {
  program
    .command("doctor")
    .description("scan a tree for instruction-file problems (truncation, shadowing, agents that disagree, imports, encoding...); exit 1 on any error")
    .argument("[dir]", "directory to scan (default: --cwd or the current directory)")
    .option("--no-gitignore", "enter directories that .gitignore ignores")
    .action(async (dir: string | undefined, options: { gitignore?: boolean }, command: Command) => {
      const { cwd, preset: _preset, ...session } = context.sessionOptions(command);
      const root = dir === undefined ? cwd! : await context.directory(dir, "DIR");
      const report = await doctor({ root, session, ...(options.gitignore === false ? { gitignore: false } : {}) });
      // Each host's own findings on agentsmd's installed hooks (Codex: untrusted or stale, skipped silently by Codex)
      const home = session.home ?? homeFromEnv(context.io.env, homedir);
      const { installerOf } = await import("../../integrations/host/installers.js");
      const { installableHosts } = await import("../../integrations/registry.js");
      const hostFindings = [];
      for (const host of installableHosts())
        hostFindings.push(...((await (await installerOf(host))?.findings?.({ home, env: context.io.env }).catch(() => [])) ?? []));
      // agentsmd's installed hooks: a command that names a missing program, or a user hook that does not answer when run
      const { hookHealthFindings } = await import("../../integrations/setup/health.js");
      const healthFindings = await hookHealthFindings({ root, home, env: context.io.env }).catch(() => []);
      for (const finding of [...hostFindings, ...healthFindings]) {
        report.findings.push(finding);
        report.counts[finding.severity]++;
      }
      const json = context.globals(command).json === true;
      if (json) context.json(report);
      else context.out(formatReport(report));
      if (report.counts.error > 0) {
        throw new AgentsMdError(`doctor found ${countOf(report.counts.error, "error")} in ${root}`, {
          path: root,
          // --json prints no fix lines: each finding of the document carries its own `fix`.
          fix: json ? 'apply the "fix" of each finding with "severity": "error" in the JSON report' : "see the fix line of each error above",
        });
      }
    });
}
