/** The runner of `agentsmd hook crush`. */
import { hookRunner } from "../host/deliver.js";
import { crushProfile } from "./profile.js";

export const runCrushHook = hookRunner(() => crushProfile());
