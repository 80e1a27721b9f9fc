/** Any MCP host: `agentsmd mcp`, registered by the user in that host (no detection, no install). */
import type { HostDefinition } from "../host/definition.js";

export const mcpHost: HostDefinition = {
  id: "mcp",
  name: "an MCP host",
  nativeRuleFormats: [],
};
