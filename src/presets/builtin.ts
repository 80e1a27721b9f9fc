/**
 * Registers every built-in preset and renderer. Each preset lives in its own module under
 * presets/ and registers itself; add one import line here per preset.
 */
import "./preset.js";
import "./hygge.js";
import "./gemini.js";
import "./opencode.js";
import "./claude.js";
import "./copilot.js";
import "./pi.js";
