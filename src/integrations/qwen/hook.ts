/**
 * The runner of `agentsmd hook qwen`: loads only the profile and the host layer.
 */
import { hookRunner } from "../host/deliver.js";
import { qwenProfile } from "./profile.js";

/** @example await runQwenHook(stdinText, { flags: {}, deliver: print }) */
export const runQwenHook = hookRunner(() => qwenProfile());
