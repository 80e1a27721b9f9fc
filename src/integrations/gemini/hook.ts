/**
 * The runner of `agentsmd hook gemini`: loads only the profile and the host layer.
 */
import { hookRunner } from "../host/deliver.js";
import { geminiProfile } from "./profile.js";

/** @example await runGeminiHook(stdinText, { flags: {}, deliver: print }) */
export const runGeminiHook = hookRunner(() => geminiProfile());
