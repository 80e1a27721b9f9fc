/**
 * The model guidance (docs/loading-rules.md#model-guidance) hosts add to their base instructions.
 */

/** Text for a host's base instructions (docs/loading-rules.md#model-guidance), one rule per line. */
export const PROMPT_GUIDANCE = `AGENTS.md instructions:
1. The AGENTS.md files from the project root to the working directory were given to you at the start of this session. Do not search for AGENTS.md files every turn.
2. Use the AGENTS.md resolver only when you read or edit files in a directory you have not worked in yet.
3. When a <system-reminder type="agents.resolve.paths"> lists AGENTS.md files, read them and apply their contents before editing files in that scope.
4. Do not read the same AGENTS.md again unless a reminder lists it again (it was edited).
5. If a <system-reminder type="session.resume.diff"> is present when a session resumes, reflect those differences first.`;
