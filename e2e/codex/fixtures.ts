/**
 * Fixture trees for the `codex` preset e2e suite, as data.
 *
 * Every fixture is built into a fresh temp directory (see `e2e/lib/tree.ts`). Conventions:
 * - `codex-home/` is `CODEX_HOME` (always created; put the global AGENTS.md there), unless
 *   `codexHome: "unset"`, in which case `CODEX_HOME` is unset and Codex uses `$HOME/.codex`;
 * - `home/` is `HOME` for both programs (always created);
 * - the project usually lives in `repo/`; nothing in the fixtures relies on the temp dir's
 *   ancestors (the suite checks that none of them holds a marker).
 *
 * `overrides` are passed to Codex as `-c key=value` (TOML values); `config` is the same settings as
 * the agentsmd JSON config file passed with `--config`. The suite checks they say the same thing.
 */
import { bytes, dir, fifo, symlink, type TreeSpec } from "../lib/tree.js";

/** Codex's own settings, as agentsmd accepts them under the `codex` key of its config file. */
export interface CodexSettings {
  project_doc_max_bytes?: number;
  project_doc_fallback_filenames?: string[];
  project_root_markers?: string[];
}

/** The agentsmd JSON config file (`--config FILE`) equivalent to a fixture's Codex overrides. */
export interface AgentsmdCodexConfig {
  codex: CodexSettings;
}

export interface CodexFixture {
  /** Unique kebab-case name; also the snapshot file name `expected/<name>.txt`. */
  name: string;
  /** The Codex behaviour this fixture pins down. */
  about: string;
  tree: TreeSpec;
  /** Working directory, relative to the tree's base. */
  cwd: string;
  /** Codex `-c key=value` overrides (value in TOML). */
  overrides?: string[];
  /** The equivalent agentsmd config (`{"codex": {...}}`); absent when there are no overrides. */
  config?: AgentsmdCodexConfig;
  /** `"unset"`: run both programs without `CODEX_HOME` (global file from `$HOME/.codex`). */
  codexHome?: "unset";
  /** Skip on platforms that cannot build the tree (fifos, symlinks on Windows). */
  posixOnly?: true;
}

/** Directory used as `CODEX_HOME`, relative to the tree's base. */
export const CODEX_HOME_DIR = "codex-home";
/** Directory used as `HOME`, relative to the tree's base. */
export const HOME_DIR = "home";

/** The `-c` overrides a config stands for: `key=<JSON>` (JSON strings, numbers and arrays are valid TOML). */
export function overridesFor(config: AgentsmdCodexConfig | undefined): string[] {
  if (!config) return [];
  return Object.entries(config.codex).map(([key, value]) => `${key}=${JSON.stringify(value)}`);
}

function settings(codex: CodexSettings): Pick<CodexFixture, "overrides" | "config"> {
  const config = { codex };
  return { config, overrides: overridesFor(config) };
}

/** `n` bytes of readable, numbered ASCII lines (each line is 32 bytes including its `\n`). */
function filler(n: number, tag: string): string {
  let out = "";
  for (let i = 0; out.length < n; i++) {
    out += `${tag} line ${String(i).padStart(5, "0")} ${".".repeat(32)}`.slice(0, 31) + "\n";
  }
  return out.slice(0, n);
}

export const fixtures: readonly CodexFixture[] = [
  // --- selection within a directory -------------------------------------------------------
  {
    name: "override-hides-agents-md",
    about: "AGENTS.override.md wins over AGENTS.md in the same directory; other dirs are unaffected",
    tree: {
      "repo/.git": dir(),
      "repo/AGENTS.md": "ROOT AGENTS (hidden)\n",
      "repo/AGENTS.override.md": "ROOT OVERRIDE\n",
      "repo/sub/AGENTS.md": "SUB AGENTS\n",
    },
    cwd: "repo/sub",
  },
  {
    name: "empty-override-hides-agents-md",
    about: "an empty AGENTS.override.md is still selected, contributes nothing and hides AGENTS.md: no fragment at all",
    tree: {
      "repo/.git": dir(),
      "repo/AGENTS.override.md": "",
      "repo/AGENTS.md": "HIDDEN BY EMPTY OVERRIDE\n",
    },
    cwd: "repo",
  },
  {
    name: "whitespace-only-files",
    about: "whitespace-only files are skipped; a whitespace-only override still hides the AGENTS.md beside it",
    tree: {
      "repo/.git": dir(),
      "repo/AGENTS.md": " \n\t \n",
      "repo/a/AGENTS.override.md": "\n\n\r\n",
      "repo/a/AGENTS.md": "HIDDEN BY WHITESPACE OVERRIDE\n",
      "repo/a/b/AGENTS.md": "B DOC\n",
    },
    cwd: "repo/a/b",
  },
  {
    name: "whitespace-not-charged",
    about: "a whitespace-only file costs nothing from the budget",
    tree: {
      "repo/.git": dir(),
      "repo/AGENTS.md": "   \n\n\n",
      "repo/sub/AGENTS.md": "abcdefgh",
    },
    cwd: "repo/sub",
    ...settings({ project_doc_max_bytes: 5 }),
  },
  {
    name: "empty-agents-hides-fallback",
    about: "an empty AGENTS.md is selected before reading and hides a fallback CLAUDE.md in the same directory",
    tree: {
      "repo/.git": dir(),
      "repo/AGENTS.md": "",
      "repo/CLAUDE.md": "ROOT CLAUDE (hidden)\n",
      "repo/sub/CLAUDE.md": "SUB CLAUDE\n",
    },
    cwd: "repo/sub",
    ...settings({ project_doc_fallback_filenames: ["CLAUDE.md"] }),
  },
  {
    name: "fallback-order-and-trim",
    about: "fallback names are trimmed, empty and built-in duplicates dropped, tried in order after the built-ins",
    tree: {
      "repo/.git": dir(),
      "repo/CLAUDE.md": "ROOT CLAUDE (loses to CONTEXT.md)\n",
      "repo/CONTEXT.md": "ROOT CONTEXT\n",
      "repo/sub/CLAUDE.md": "SUB CLAUDE\n",
      "repo/sub/deeper/AGENTS.md": "DEEPER AGENTS\n",
      "repo/sub/deeper/CONTEXT.md": "DEEPER CONTEXT (loses to AGENTS.md)\n",
    },
    cwd: "repo/sub/deeper",
    ...settings({ project_doc_fallback_filenames: ["  CONTEXT.md  ", "", "AGENTS.md", "CLAUDE.md"] }),
  },
  {
    name: "fallback-non-bare-ignored",
    about: "fallback names that are not bare file names (a/b, .., .) are ignored; bare ones still work",
    tree: {
      "repo/.git": dir(),
      "repo/.agent/AGENTS.md": "NESTED NAME (ignored)\n",
      "repo/NOTES.md": "ROOT NOTES\n",
      "repo/sub/docs/AGENTS.md": "SUB DOCS (ignored)\n",
      "repo/sub/.agent/AGENTS.md": "SUB NESTED NAME (ignored)\n",
    },
    cwd: "repo/sub",
    ...settings({ project_doc_fallback_filenames: [".agent/AGENTS.md", "docs/AGENTS.md", "..", ".", "NOTES.md"] }),
  },
  {
    name: "directory-named-agents-md",
    about: "a directory named AGENTS.override.md or AGENTS.md is not a candidate; the next name is tried",
    tree: {
      "repo/.git": dir(),
      "repo/AGENTS.override.md/README": "a directory, not a file\n",
      "repo/AGENTS.md": "ROOT AGENTS\n",
      "repo/sub/AGENTS.md/x.md": "inside a directory named AGENTS.md\n",
      "repo/sub/CLAUDE.md": "SUB CLAUDE\n",
    },
    cwd: "repo/sub",
    ...settings({ project_doc_fallback_filenames: ["CLAUDE.md"] }),
  },
  {
    name: "fifo-named-agents-md",
    about: "a FIFO named AGENTS.md is skipped (never opened) and the fallback is used",
    tree: {
      "repo/.git": dir(),
      "repo/AGENTS.override.md": fifo(),
      "repo/AGENTS.md": fifo(),
      "repo/CLAUDE.md": "ROOT CLAUDE\n",
    },
    cwd: "repo",
    posixOnly: true,
    ...settings({ project_doc_fallback_filenames: ["CLAUDE.md"] }),
  },

  // --- symlinks ---------------------------------------------------------------------------
  {
    name: "symlink-inside-tree",
    about: "AGENTS.md may be a symlink to a regular file in the repo",
    tree: {
      "repo/.git": dir(),
      "repo/docs/agents.md": "LINKED FROM INSIDE\n",
      "repo/AGENTS.md": symlink("docs/agents.md"),
    },
    cwd: "repo",
  },
  {
    name: "symlink-outside-tree",
    about: "AGENTS.md may be a symlink to a file outside the repo; the heading still names the cwd",
    tree: {
      "repo/.git": dir(),
      "repo/AGENTS.md": "ROOT\n",
      "elsewhere/shared.md": "SHARED FROM OUTSIDE THE REPO\n",
      "repo/sub/AGENTS.md": symlink("../../elsewhere/shared.md"),
    },
    cwd: "repo/sub",
  },
  {
    name: "dangling-symlink-falls-through",
    about: "a dangling AGENTS.override.md symlink counts as missing; AGENTS.md is used",
    tree: {
      "repo/.git": dir(),
      "repo/AGENTS.override.md": symlink("nowhere.md"),
      "repo/AGENTS.md": "REAL AGENTS\n",
    },
    cwd: "repo",
  },
  {
    name: "symlink-to-directory-skipped",
    about: "a symlink to a directory is not a regular file; the next candidate is tried",
    tree: {
      "repo/.git": dir(),
      "repo/docs/x.md": "x\n",
      "repo/AGENTS.md": symlink("docs"),
      "repo/CLAUDE.md": "ROOT CLAUDE\n",
    },
    cwd: "repo",
    ...settings({ project_doc_fallback_filenames: ["CLAUDE.md"] }),
  },
  {
    name: "cwd-through-symlink-is-lexical",
    about: "the cwd is used lexically: the root search walks the symlink's parents, and the heading names the link",
    tree: {
      "real/repo/.git": dir(),
      "real/repo/AGENTS.md": "REAL ROOT (not reached through the link)\n",
      "real/repo/sub/AGENTS.md": "SUB\n",
      link: symlink("real/repo/sub"),
    },
    cwd: "link",
  },

  {
    name: "symlinked-dir-in-chain-is-lexical",
    about: "a symlinked directory between root and cwd is walked by name: the link's target's parents play no part",
    tree: {
      "repo/.git": dir(),
      "repo/AGENTS.md": "REPO ROOT\n",
      "elsewhere/AGENTS.md": "ELSEWHERE PARENT (never: not on the lexical chain)\n",
      "elsewhere/pkg/AGENTS.md": "PKG THROUGH THE LINK\n",
      "elsewhere/pkg/src/AGENTS.md": "PKG SRC\n",
      "repo/link": symlink("../elsewhere/pkg"),
    },
    cwd: "repo/link/src",
  },
  {
    name: "symlink-loop-drops-project-docs",
    about: "a candidate whose metadata fails with something other than NotFound (here ELOOP) aborts discovery: no project docs at all, the global file stays",
    tree: {
      "codex-home/AGENTS.md": "GLOBAL\n",
      "repo/.git": dir(),
      "repo/AGENTS.md": "ROOT (dropped)\n",
      "repo/sub/AGENTS.override.md": symlink("AGENTS.override.md"),
      "repo/sub/AGENTS.md": "SUB (dropped)\n",
    },
    cwd: "repo/sub",
  },
  {
    name: "global-symlink-loop-falls-through",
    about: "in CODEX_HOME a candidate that cannot be read (ELOOP) is skipped with a warning; the next one is used",
    tree: {
      "codex-home/AGENTS.override.md": symlink("AGENTS.override.md"),
      "codex-home/AGENTS.md": "GLOBAL AFTER THE LOOP\n",
      "repo/.git": dir(),
      "repo/AGENTS.md": "ROOT\n",
    },
    cwd: "repo",
  },

  // --- budget -----------------------------------------------------------------------------
  {
    name: "budget-cut-mid-character",
    about: "the budget cuts raw bytes inside a multi-byte character, which decodes to U+FFFD",
    tree: { "repo/.git": dir(), "repo/AGENTS.md": "héllo\n" },
    cwd: "repo",
    ...settings({ project_doc_max_bytes: 2 }),
  },
  {
    name: "budget-cut-second-file-multibyte",
    about: "the remaining budget after the root file cuts the next file inside a 3-byte character; joiners are free",
    tree: {
      "repo/.git": dir(),
      "repo/AGENTS.md": "ROOT DOC\n",
      "repo/sub/AGENTS.md": "日本語\n",
    },
    cwd: "repo/sub",
    ...settings({ project_doc_max_bytes: 13 }),
  },
  {
    name: "budget-root-first-starves",
    about: "budget is spent greedily root-first; deeper files are cut or dropped without notice",
    tree: {
      "repo/.git": dir(),
      "repo/AGENTS.md": "ROOT DOC\n",
      "repo/sub/AGENTS.md": "SUB DOC\n",
      "repo/sub/deep/AGENTS.md": "DEEP DOC\n",
    },
    cwd: "repo/sub/deep",
    ...settings({ project_doc_max_bytes: 12 }),
  },
  {
    name: "budget-exact-fit",
    about: "a file that uses the budget exactly is whole; everything after it is dropped",
    tree: {
      "repo/.git": dir(),
      "repo/AGENTS.md": "ROOT DOC\n",
      "repo/sub/AGENTS.md": "SUB DOC\n",
    },
    cwd: "repo/sub",
    ...settings({ project_doc_max_bytes: 9 }),
  },
  {
    name: "cut-to-whitespace-not-charged",
    about: "the cut comes before the emptiness check: a file cut down to whitespace is skipped and costs nothing",
    tree: {
      "repo/.git": dir(),
      "repo/AGENTS.md": "   \nROOT TEXT AFTER THE CUT",
      "repo/sub/AGENTS.md": "abcdef",
    },
    cwd: "repo/sub",
    ...settings({ project_doc_max_bytes: 4 }),
  },
  {
    name: "budget-zero-keeps-global",
    about: "project_doc_max_bytes = 0 disables project docs only; global-only text has no ' for <cwd>'",
    tree: {
      "codex-home/AGENTS.md": "GLOBAL\n",
      "repo/.git": dir(),
      "repo/AGENTS.md": "ROOT DOC\n",
    },
    cwd: "repo",
    ...settings({ project_doc_max_bytes: 0 }),
  },
  {
    name: "budget-zero-no-global",
    about: "project_doc_max_bytes = 0 and no global file: no fragment",
    tree: { "repo/.git": dir(), "repo/AGENTS.md": "ROOT DOC\n" },
    cwd: "repo",
    ...settings({ project_doc_max_bytes: 0 }),
  },
  {
    name: "global-not-charged",
    about: "the global file is outside the project budget",
    tree: {
      "codex-home/AGENTS.md": filler(200, "global"),
      "repo/.git": dir(),
      "repo/AGENTS.md": "0123456789ABCDEF\n",
    },
    cwd: "repo",
    ...settings({ project_doc_max_bytes: 10 }),
  },
  {
    name: "global-larger-than-default-budget",
    about: "a global file larger than the 32 KiB project budget is included whole, and the project still gets its full budget",
    tree: {
      "codex-home/AGENTS.md": filler(40000, "global"),
      "repo/.git": dir(),
      "repo/AGENTS.md": "ROOT DOC\n",
    },
    cwd: "repo",
  },
  {
    name: "default-budget-32k",
    about: "the default budget is 32768 bytes in total, cut silently",
    tree: {
      "repo/.git": dir(),
      "repo/AGENTS.md": filler(30000, "root"),
      "repo/sub/AGENTS.md": filler(5000, "sub"),
    },
    cwd: "repo/sub",
  },

  // --- root detection ---------------------------------------------------------------------
  {
    name: "nested-git-dir-becomes-root",
    about: "the nearest .git directory wins: a nested repo drops the outer repo's docs",
    tree: {
      "outer/.git": dir(),
      "outer/AGENTS.md": "OUTER (dropped)\n",
      "outer/vendor/AGENTS.md": "VENDOR (dropped)\n",
      "outer/vendor/lib/.git": dir(),
      "outer/vendor/lib/AGENTS.md": "LIB ROOT\n",
      "outer/vendor/lib/src/AGENTS.md": "LIB SRC\n",
    },
    cwd: "outer/vendor/lib/src",
  },
  {
    name: "nested-git-file-becomes-root",
    about: "a .git file (submodule, worktree) is a marker too",
    tree: {
      "outer/.git": dir(),
      "outer/AGENTS.md": "OUTER (dropped)\n",
      "outer/mod/.git": "gitdir: ../.git/modules/mod\n",
      "outer/mod/AGENTS.md": "SUBMODULE ROOT\n",
      "outer/mod/pkg/AGENTS.md": "SUBMODULE PKG\n",
    },
    cwd: "outer/mod/pkg",
  },
  {
    name: "dangling-marker-symlink-is-absent",
    about: "a dangling .git symlink is not a marker; the search continues upward",
    tree: {
      "outer/.git": dir(),
      "outer/AGENTS.md": "OUTER ROOT\n",
      "outer/pkg/.git": symlink("missing-gitdir"),
      "outer/pkg/AGENTS.md": "PKG\n",
    },
    cwd: "outer/pkg",
  },
  {
    name: "marker-symlink-loop-is-no-marker",
    about: "a marker probe failing with something other than NotFound (ELOOP) counts as no marker",
    tree: {
      "outer/.git": dir(),
      "outer/AGENTS.md": "OUTER ROOT\n",
      "outer/pkg/.git": symlink(".git"),
      "outer/pkg/AGENTS.md": "PKG\n",
    },
    cwd: "outer/pkg",
  },
  {
    name: "no-marker-cwd-only",
    about: "no marker in any ancestor: only the cwd is searched (never parents, never HOME)",
    tree: {
      "home/AGENTS.md": "HOME AGENTS (never loaded)\n",
      "work/AGENTS.md": "PARENT (not loaded)\n",
      "work/proj/AGENTS.md": "CWD DOC\n",
    },
    cwd: "work/proj",
  },
  {
    name: "markers-empty-cwd-only",
    about: "project_root_markers = [] disables root detection: cwd only",
    tree: {
      "repo/.git": dir(),
      "repo/AGENTS.md": "ROOT (not loaded)\n",
      "repo/sub/AGENTS.md": "SUB DOC\n",
    },
    cwd: "repo/sub",
    ...settings({ project_root_markers: [] }),
  },
  {
    name: "custom-markers",
    about: "custom markers replace .git; the nearest ancestor holding any of them (file or dir) is the root",
    tree: {
      "repo/.hg": dir(),
      "repo/AGENTS.md": "HG ROOT (dropped: package.json is nearer)\n",
      "repo/packages/AGENTS.md": "PACKAGES (dropped)\n",
      "repo/packages/app/package.json": "{}\n",
      "repo/packages/app/AGENTS.md": "APP ROOT\n",
      "repo/packages/app/src/.git": dir(),
      "repo/packages/app/src/AGENTS.md": "APP SRC (its .git is no marker here)\n",
    },
    cwd: "repo/packages/app/src",
    ...settings({ project_root_markers: [".hg", "package.json"] }),
  },
  {
    name: "git-file-at-cwd",
    about: "the cwd itself holding the marker is the root",
    tree: {
      "repo/AGENTS.md": "ABOVE THE WORKTREE (dropped)\n",
      "repo/wt/.git": "gitdir: /nonexistent/worktrees/wt\n",
      "repo/wt/AGENTS.md": "WORKTREE DOC\n",
    },
    cwd: "repo/wt",
  },
  {
    name: "repo-codex-config-ignored",
    about: "a repo's own .codex/config.toml moves neither the root nor the budget nor the fallback names",
    tree: {
      "repo/.git": dir(),
      "repo/.codex/config.toml": 'project_root_markers = []\nproject_doc_max_bytes = 3\nproject_doc_fallback_filenames = ["CLAUDE.md"]\n',
      "repo/AGENTS.md": "ROOT DOC\n",
      "repo/sub/CLAUDE.md": "SUB CLAUDE (not a fallback)\n",
      "repo/sub/deeper/AGENTS.md": "DEEPER DOC\n",
    },
    cwd: "repo/sub/deeper",
  },
  {
    name: "deep-chain",
    about: "every directory from root to cwd contributes, root first, at most one file each",
    tree: {
      "repo/.git": dir(),
      "repo/AGENTS.md": "level 0\n",
      "repo/d1/AGENTS.md": "level 1\n",
      "repo/d1/d2/d3/AGENTS.md": "level 3\n",
      "repo/d1/d2/d3/d4/AGENTS.md": "level 4\n",
      "repo/d1/d2/d3/d4/d5/AGENTS.override.md": "level 5 override\n",
      "repo/d1/d2/d3/d4/d5/AGENTS.md": "level 5 (hidden)\n",
      "repo/d1/d2/d3/d4/d5/d6/d7/AGENTS.md": "level 7\n",
      "repo/d1/d2/d3/d4/d5/d6/d7/d8/d9/AGENTS.md": "level 9\n",
      "repo/d1/d2/d3/d4/d5/d6/d7/d8/d9/d10/d11/d12/AGENTS.md": "level 12\n",
      "repo/d1/d2/d3/d4/d5/d6/d7/d8/d9/d10/d11/d12/d13/AGENTS.md": "level 13 (below cwd: never)\n",
      "repo/d1/sibling/AGENTS.md": "sibling (never)\n",
    },
    cwd: "repo/d1/d2/d3/d4/d5/d6/d7/d8/d9/d10/d11/d12",
  },
  {
    name: "cwd-path-with-spaces-and-unicode",
    about: "the heading prints the cwd path verbatim",
    tree: {
      "repo/.git": dir(),
      "repo/AGENTS.md": "ROOT\n",
      "repo/dir with spaces/ünïcødé/AGENTS.md": "UNICODE DIR\n",
    },
    cwd: "repo/dir with spaces/ünïcødé",
  },

  // --- global layer -----------------------------------------------------------------------
  {
    name: "global-only",
    about: "global text is trimmed; without project docs the heading has no ' for <cwd>' and there is no separator",
    tree: {
      "codex-home/AGENTS.md": "\n  GLOBAL ONLY\n  indented line kept  \n\n\n",
      "repo/.git": dir(),
    },
    cwd: "repo",
  },
  {
    name: "global-and-project",
    about: "global, then --- project-doc ---, then root -> cwd docs untrimmed (peers.md 1.6 example)",
    tree: {
      "codex-home/AGENTS.md": "GLOBAL DOC\n",
      "repo/.git": dir(),
      "repo/AGENTS.md": "ROOT DOC\n",
      "repo/sub/AGENTS.md": "SUB DOC\n",
      "repo/sub/deeper/AGENTS.override.md": "DEEP OVERRIDE\n",
      "repo/sub/deeper/AGENTS.md": "DEEP AGENTS (hidden)\n",
    },
    cwd: "repo/sub/deeper",
  },
  {
    name: "global-empty-override-falls-through",
    about: "in CODEX_HOME an empty override falls through to AGENTS.md (unlike in project dirs)",
    tree: {
      "codex-home/AGENTS.override.md": " \n\n",
      "codex-home/AGENTS.md": "GLOBAL FALLBACK\n",
      "repo/.git": dir(),
      "repo/AGENTS.md": "ROOT\n",
    },
    cwd: "repo",
  },
  {
    name: "global-override-wins",
    about: "a non-empty global override wins over the global AGENTS.md",
    tree: {
      "codex-home/AGENTS.override.md": "GLOBAL OVERRIDE\n",
      "codex-home/AGENTS.md": "GLOBAL PLAIN (hidden)\n",
      "repo/.git": dir(),
      "repo/AGENTS.md": "ROOT\n",
    },
    cwd: "repo",
  },
  {
    name: "global-directory-and-symlink",
    about: "a directory named AGENTS.override.md in CODEX_HOME is skipped; AGENTS.md may be a symlink",
    tree: {
      "codex-home/AGENTS.override.md/x": "dir\n",
      "dotfiles/agents.md": "GLOBAL VIA SYMLINK\n",
      "codex-home/AGENTS.md": symlink("../dotfiles/agents.md"),
      "repo/.git": dir(),
    },
    cwd: "repo",
  },
  {
    name: "global-from-home-when-codex-home-unset",
    about: "without CODEX_HOME the global file comes from $HOME/.codex",
    tree: {
      "home/.codex/AGENTS.md": "GLOBAL FROM ~/.codex\n",
      "codex-home/AGENTS.md": "NOT USED: CODEX_HOME is unset\n",
      "repo/.git": dir(),
      "repo/AGENTS.md": "ROOT\n",
    },
    cwd: "repo",
    codexHome: "unset",
  },

  // --- bytes and text ---------------------------------------------------------------------
  {
    name: "crlf-and-trailing-newlines",
    about: "project docs are kept verbatim: CRLF, leading blank lines and trailing newlines stay",
    tree: {
      "repo/.git": dir(),
      "repo/AGENTS.md": "line one\r\nline two\r\n\r\n",
      "repo/sub/AGENTS.md": "\n\n  leading blank lines and indent kept\n\n\n",
    },
    cwd: "repo/sub",
  },
  {
    name: "invalid-utf8",
    about: "invalid UTF-8 bytes decode lossily to U+FFFD in project and global files",
    tree: {
      // "GL", 0xFF, "OBAL", truncated 3-byte seq, newline
      "codex-home/AGENTS.md": bytes(0x47, 0x4c, 0xff, 0x4f, 0x42, 0x41, 0x4c, 0xe2, 0x82, 0x0a),
      "repo/.git": dir(),
      // "A", 0xFF 0xFE, "B", 0xC3 "(" (bad continuation), 0xED 0xA0 0x80 (surrogate), 0xF0 0x9F (cut 4-byte), "\n"
      "repo/AGENTS.md": bytes(0x41, 0xff, 0xfe, 0x42, 0xc3, 0x28, 0xed, 0xa0, 0x80, 0x43, 0xf0, 0x9f, 0x0a),
    },
    cwd: "repo",
  },
  {
    name: "bom-and-unicode-whitespace",
    about: "a UTF-8 BOM is kept (and is not whitespace, so a BOM-only global file wins); U+0085 counts as whitespace",
    tree: {
      "codex-home/AGENTS.override.md": "\uFEFF\n",
      "codex-home/AGENTS.md": "GLOBAL (hidden by the BOM-only override)\n",
      "repo/.git": dir(),
      "repo/AGENTS.md": "\uFEFFBOM DOC\n",
      "repo/nel/AGENTS.md": "\u0085\u2003\n",
      "repo/nel/deeper/AGENTS.md": "DEEPER\n",
    },
    cwd: "repo/nel/deeper",
  },
];
