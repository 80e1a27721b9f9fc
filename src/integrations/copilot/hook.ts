/**
 * The runner of `agentsmd hook copilot --event <event>`: loads only the profile and the host layer.
 */
import { hookRunner } from "../host/deliver.js";
import { copilotProfile } from "./profile.js";

export const runCopilotHook = hookRunner((flags) => copilotProfile({ event: flags.event }));
