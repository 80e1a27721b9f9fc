/** The runner of `agentsmd hook crush`. @example await runCrushHook(stdinText, { flags: {}, deliver: print }) */
import { hookRunner } from "../host/deliver.js";
import { crushProfile } from "./profile.js";

export const runCrushHook = hookRunner(() => crushProfile());
