/**
 * Qwen Code's own context loading, run from the installed `@qwen-code/qwen-code` (pinned in
 * e2e/qwen/package.json): reads a JSON array of requests on stdin and prints a JSON array of
 * answers. Plain JavaScript so plain `node` runs it.
 *
 * What it calls is what Qwen Code 0.24.4 calls at startup, nothing re-implemented:
 * `loadServerHierarchicalMemory(cwd, [], fileService, [], folderTrust = true)` from the bundled
 * `packages/core/src/memory/memoryDiscovery.ts` (exported by the chunk that holds it), after
 * `setMemoryFilename(names)` when a request names `context.fileName`.
 *
 * Request: {"cwd":"/abs","home":"/abs","qwenHome":"/abs"?,"fileName":["AGENTS.md"]?}
 * Answer:  {"memoryContent":"...","contextFilePaths":[...],"projectRoot":"..."} or {"error":"..."}
 *
 * HOME and QWEN_HOME are set in this process per request (Qwen reads both on every call).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const PACKAGE_DIR = process.argv[2];
if (!PACKAGE_DIR) throw new Error("usage: node oracle.mjs <dir of @qwen-code/qwen-code>");
const chunks = join(PACKAGE_DIR, "chunks");
// The chunk names are content hashes: find the ones exporting what we call.
const exporting = (name) =>
  readdirSync(chunks).find(
    (file) => file.startsWith("chunk-") && new RegExp(`^export \\{[^}]*\\b${name}\\b`, "m").test(readFileSync(join(chunks, file), "utf8")),
  );
const memoryChunk = exporting("loadServerHierarchicalMemory");
const namesChunk = exporting("setMemoryFilename");
if (!memoryChunk || !namesChunk) throw new Error(`loadServerHierarchicalMemory/setMemoryFilename not found in ${chunks}`);
const { loadServerHierarchicalMemory } = await import(pathToFileURL(join(chunks, memoryChunk)).href);
const { setMemoryFilename } = await import(pathToFileURL(join(chunks, namesChunk)).href);

let input = "";
for await (const chunk of process.stdin) input += chunk;
const answers = [];
for (const request of JSON.parse(input)) {
  try {
    process.env.HOME = request.home;
    if (request.qwenHome) process.env.QWEN_HOME = request.qwenHome;
    else delete process.env.QWEN_HOME;
    setMemoryFilename(request.fileName ?? ["QWEN.md", "AGENTS.md"]);
    const result = await loadServerHierarchicalMemory(request.cwd, [], undefined, [], true);
    answers.push({ memoryContent: result.memoryContent, contextFilePaths: result.contextFilePaths, projectRoot: result.projectRoot });
  } catch (error) {
    answers.push({ error: String(error?.stack ?? error) });
  }
}
process.stdout.write(JSON.stringify(answers));
