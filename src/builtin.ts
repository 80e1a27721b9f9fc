/**
 * Registers every built-in preset and renderer. Each preset lives in its own module under
 * presets/ and registers itself; add one import line here per preset.
 */
import "./presets.js";
import "./presets/hygge.js";
import "./presets/gemini.js";
import "./presets/opencode.js";
import "./presets/claude.js";
