// ESLint (flat config; `npm run lint`, in .ci/run after typecheck). src/ gets typescript-eslint's
// type-checked recommended rules: the correctness ones (floating and misused promises, unsafe `any`
// flows, awaits of non-promises, needless assertions) are the point. Tests, bench and e2e get the
// syntax-only recommended set: `npm run typecheck` checks their types already, and type-aware
// linting of ~300 more files would double the lint's time for rules written for library code.
// A rule turned off below says which project choice it fights.
import js from "@eslint/js";
import { defineConfig } from "eslint/config";
import tseslint from "typescript-eslint";

const unusedVars = ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrors: "none", ignoreRestSiblings: true }];

export default defineConfig(
  {
    ignores: ["dist/**", "coverage/**", "**/node_modules/**", "bench/.build/**", "bench/.trees/**", "bench/results/**", ".tmp/**"],
  },
  js.configs.recommended,
  {
    files: ["**/*.ts"],
    extends: [tseslint.configs.recommended],
    rules: {
      // A `_` name marks a parameter a fixed signature (a host's handler, a callback) requires.
      "@typescript-eslint/no-unused-vars": unusedVars,
      // `cond && call()` and `cond ? a() : b()` as statements are the codebase's idiom for one-line branches.
      "@typescript-eslint/no-unused-expressions": ["error", { allowShortCircuit: true, allowTernary: true }],
    },
  },
  {
    files: ["src/**/*.ts"],
    extends: [tseslint.configs.recommendedTypeChecked],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      "@typescript-eslint/no-unused-vars": unusedVars,
      "@typescript-eslint/no-unused-expressions": ["error", { allowShortCircuit: true, allowTernary: true }],
      // "Async only": a profile's or file system's hook is async even where one implementation has
      // nothing to await, so every caller awaits one shape and a throw becomes a rejection.
      "@typescript-eslint/require-await": "off",
      // Interfaces declare their functions in method syntax for readability, but every value behind
      // them is a closure or a `this`-free object (FileSystem, ExcludeSet, HostProfile.native), and
      // the code passes them around detached on purpose.
      "@typescript-eslint/unbound-method": "off",
      // Re-rejecting what a `catch` caught (an fs error, `unknown` under strict) keeps Node's own error.
      "@typescript-eslint/prefer-promise-reject-errors": ["error", { allowThrowingUnknown: true }],
    },
  },
  {
    files: ["test/**/*.ts", "bench/**/*.ts", "e2e/**/*.ts"],
    rules: {
      // Fakes, mocks and recorded JSON payloads are `any` on purpose; the code under test is typed.
      "@typescript-eslint/no-explicit-any": "off",
      // The security suites match control characters (escapes, terminal sequences) on purpose.
      "no-control-regex": "off",
      // Argv parsers and tree walkers write `((x = value), i++)` branches on one line.
      "@typescript-eslint/no-unused-expressions": "off",
    },
  },
  {
    // Build and record scripts and plugin fixtures: plain ESM run by Node (or by the agent under test).
    files: ["**/*.mjs", "**/*.js"],
    languageOptions: {
      globals: { process: "readonly", console: "readonly", URL: "readonly", Buffer: "readonly", setTimeout: "readonly", clearTimeout: "readonly" },
    },
  },
);
