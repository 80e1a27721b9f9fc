import fc from "fast-check";
import picomatch from "picomatch";
import { describe, expect, it } from "vitest";
import { parseFrontmatter } from "../../src/load/rules/frontmatter.js";
import { normaliseRule, type ScopedRule } from "../../src/load/rules/rule.js";
import { globMatch, rulesForPath, relativeBelow, isDeliverable } from "../../src/load/rules/apply.js";
import { compileGlobs, splitGlobList, cleanGlob } from "../../src/load/rules/match.js";
import { RULE_FORMATS, RULE_FORMAT_SPECS, formatsForHost, defaultFormatsFor, type RuleFormat } from "../../src/load/rules/formats.js";
import { hostById, hostDefinitions } from "../../src/integrations/registry.js";

const RUNS = Number(process.env.FUZZ_RUNS ?? 200);
const ROOT = "/repo";

function ruleOf(format: RuleFormat, header: string, body = "body\n"): ScopedRule {
  const spec = RULE_FORMAT_SPECS[format];
  const text = header ? `---\n${header}\n---\n${body}` : body;
  return normaliseRule({
    format,
    path: `${ROOT}/${spec.dir}/r${spec.fileSuffixes[0]}`,
    base: ROOT,
    frontmatter: parseFrontmatter(text, spec.globKeys),
    mtimeMs: 1,
    sizeBytes: text.length,
    truncated: false,
  }).rule;
}

const GLOB_KEY: Record<RuleFormat, string> = {
  copilot: "applyTo",
  claude: "paths",
  cursor: "globs",
  continue: "globs",
  qwen: "paths",
  windsurf: "globs",
  rulesync: "globs",
  ruler: "",
};
/** Formats whose files carry globs (Ruler's scope is its directory). */
const GLOBBED = RULE_FORMATS.filter((format) => RULE_FORMAT_SPECS[format].globKeys.length > 0);
const EXTRA: Partial<Record<RuleFormat, string>> = { windsurf: "trigger: glob\n" };
function globRule(format: RuleFormat, globs: string[]): ScopedRule {
  return ruleOf(format, `${EXTRA[format] ?? ""}${GLOB_KEY[format]}: ${JSON.stringify(globs)}`);
}

const segmentArb = fc.constantFrom("a", "b", "src", ".x", "c.ts", "a.ts", "b.md", "x.test.ts", "A");
const pathArb = fc.array(segmentArb, { minLength: 1, maxLength: 5 }).map((parts) => parts.join("/"));
const globSegmentArb = fc.constantFrom("a", "b", "src", "*", "**", "?", "*.ts", "{a,b}", ".x", "*.md", "[ab]", "x.*");
const globArb = fc.array(globSegmentArb, { minLength: 1, maxLength: 4 }).map((parts) => parts.join("/"));

describe("glob matching agrees with picomatch", () => {
  it("a strict format's glob matches a root-relative path exactly when picomatch {dot:true} does", () => {
    const strict = GLOBBED.filter((format) => !RULE_FORMAT_SPECS[format].matchBase);
    fc.assert(
      fc.property(fc.constantFrom(...strict), globArb, pathArb, (format, glob, path) => {
        const expected = picomatch(glob, { dot: true })(path);
        expect(globMatch(globRule(format, [glob]), `${ROOT}/${path}`) === glob).toBe(expected);
      }),
      { numRuns: RUNS },
    );
  });

  it("Windsurf: a glob without a slash matches the file name at any depth, one with a slash the whole path", () => {
    fc.assert(
      fc.property(globArb, pathArb, (glob, path) => {
        const target = glob.includes("/") ? path : path.split("/").pop()!;
        const expected = picomatch(glob, { dot: true })(target);
        expect(globMatch(globRule("windsurf", [glob]), `${ROOT}/${path}`) === glob).toBe(expected);
      }),
      { numRuns: RUNS },
    );
  });

  it("a ! glob vetoes: the rule matches when a positive glob does and the negated one does not", () => {
    fc.assert(
      fc.property(globArb, globArb, pathArb, (positive, negative, path) => {
        const expected = picomatch(positive, { dot: true })(path) && !picomatch(negative, { dot: true })(path);
        expect(compileGlobs([positive, `!${negative}`])(path) !== null).toBe(expected);
      }),
      { numRuns: RUNS },
    );
  });

  it("nothing outside the base (or reached through ..) ever matches", () => {
    fc.assert(
      fc.property(fc.constantFrom(...GLOBBED), pathArb, (format, path) => {
        const rule = globRule(format, ["**"]);
        expect(globMatch(rule, `/elsewhere/${path}`)).toBeNull();
        expect(globMatch(rule, `${ROOT}x/${path}`)).toBeNull();
        expect(globMatch(rule, `${ROOT}/${path}/../../../etc/passwd`)).toBeNull();
        expect(globMatch(rule, ROOT)).toBeNull();
      }),
      { numRuns: 50 },
    );
  });

  it("a comma list splits outside braces only, and each item comes back cleaned", () => {
    fc.assert(
      fc.property(fc.array(globArb, { minLength: 1, maxLength: 4 }), fc.constantFrom(",", ", ", " ,"), (globs, separator) => {
        expect(splitGlobList(globs.join(separator))).toEqual(globs);
      }),
      { numRuns: RUNS },
    );
  });
});

describe("each format's documented semantics", () => {
  const cases: Array<[RuleFormat, string, string, boolean]> = [
    // GitHub docs: `*.py` is the current (root) directory only; `**/*.py` recursive.
    ["copilot", 'applyTo: "*.py"', "main.py", true],
    ["copilot", 'applyTo: "*.py"', "pkg/main.py", false],
    ["copilot", 'applyTo: "**/*.ts,**/*.tsx"', "web/App.tsx", true],
    ["copilot", 'applyTo: "src/**"', "src/a/b.go", true],
    ["copilot", 'applyTo: "**"', ".github/workflows/ci.yml", true],
    // Claude Code docs: `*.md` matches the project root only; YAML list and comma strings.
    ["claude", 'paths: "*.md"', "README.md", true],
    ["claude", 'paths: "*.md"', "docs/a.md", false],
    ["claude", "paths:\n  - src/**/*.ts\n  - lib/**", "lib/x.js", true],
    ["claude", "paths: src/**/*.{ts,tsx}, test/**", "src/a/b.tsx", true],
    ["claude", "paths: src/**/*.{ts,tsx}, test/**", "test/x.ts", true],
    // Cursor: unquoted comma strings as its editor writes them.
    ["cursor", "globs: src/**/*.ts,apps/*/components/**", "apps/web/components/a.tsx", true],
    ["cursor", "globs: *.ts", "a/b.ts", false],
    ["cursor", "globs: **/*.ts\nalwaysApply: false", "a/b.ts", true],
    // Continue: list with ! exclusions.
    ["continue", 'globs: ["**/*.ts", "!**/*.test.ts"]', "src/a.ts", true],
    ["continue", 'globs: ["**/*.ts", "!**/*.test.ts"]', "src/a.test.ts", false],
    ["continue", 'globs: "**/*.{ts,tsx}"', "x/y.tsx", true],
    // Qwen Code: one string is one glob (no comma split); dot files match.
    ["qwen", "paths: 'src/**/*.{tsx,jsx}'", "src/a/b.jsx", true],
    ["qwen", "paths:\n  - '.github/**'", ".github/x.yml", true],
    // Windsurf: `*.js` is every JavaScript file.
    ["windsurf", "trigger: glob\nglobs: *.js", "a/b/c.js", true],
    ["windsurf", "trigger: glob\nglobs: src/*.js", "a/src/c.js", false],
  ];
  it.each(cases)("%s %j on %s -> %s", (format, header, path, expected) => {
    const rule = ruleOf(format, header);
    expect(rule.activation).toBe("glob");
    expect(globMatch(rule, `${ROOT}/${path}`) !== null).toBe(expected);
  });

  it("activation follows each format's rules", () => {
    expect(ruleOf("claude", "").activation).toBe("always");
    expect(ruleOf("qwen", "description: d").activation).toBe("always");
    expect(ruleOf("copilot", "description: d").activation).toBe("manual");
    expect(ruleOf("cursor", "alwaysApply: true\nglobs: a/**").activation).toBe("always");
    expect(ruleOf("cursor", "description: when testing").activation).toBe("model");
    expect(ruleOf("cursor", "").activation).toBe("manual");
    expect(ruleOf("continue", "name: x").activation).toBe("always");
    expect(ruleOf("continue", "alwaysApply: false\ndescription: d").activation).toBe("model");
    expect(ruleOf("continue", "regex: class \\w+").activation).toBe("glob");
    expect(ruleOf("windsurf", "trigger: always_on").activation).toBe("always");
    expect(ruleOf("windsurf", "trigger: model_decision\ndescription: d").activation).toBe("model");
    expect(ruleOf("windsurf", "trigger: manual").activation).toBe("manual");
  });

  it("keeps unknown keys, description and name in the record", () => {
    const rule = ruleOf("continue", "name: Components\ndescription: React\nglobs: src/**\nowner: web-team");
    expect(rule).toMatchObject({ name: "Components", description: "React", globs: ["src/**"], frontmatter: { owner: "web-team" } });
  });

  it("a Copilot rule excluded from the coding agent is never delivered", () => {
    expect(isDeliverable(ruleOf("copilot", 'applyTo: "**"\nexcludeAgent: "coding-agent"'))).toBe(false);
    expect(isDeliverable(ruleOf("copilot", 'applyTo: "**"\nexcludeAgent: "code-review"'))).toBe(true);
  });

  it("a rule with a malformed header is reported and never delivered", () => {
    const spec = RULE_FORMAT_SPECS.cursor;
    const { rule, problems } = normaliseRule({
      format: "cursor",
      path: "/repo/.cursor/rules/x.mdc",
      base: ROOT,
      frontmatter: parseFrontmatter("---\nglobs: a/**\nalwaysApply: [\n---\nbody", spec.globKeys),
      mtimeMs: 0,
      sizeBytes: 1,
      truncated: false,
    });
    expect(problems[0]!.line).toBeGreaterThanOrEqual(3);
    expect(isDeliverable(rule)).toBe(false);
  });

  it("Continue regex rules apply only when the content matches", () => {
    const rule = ruleOf("continue", 'globs: "**/*.ts"\nregex: "class \\\\w+"');
    expect(rulesForPath([rule], "/repo/a.ts", "export class A {}").map((m) => m.reason)).toEqual(["**/*.ts + regex class \\w+"]);
    expect(rulesForPath([rule], "/repo/a.ts", "const a = 1")).toEqual([]);
    expect(rulesForPath([rule], "/repo/a.ts")).toEqual([]);
  });

  it("cleans quotes, ./ and a leading slash", () => {
    expect(cleanGlob(" './src/**' ")).toBe("src/**");
    expect(cleanGlob("/docs/*.md")).toBe("docs/*.md");
    expect(relativeBelow("/repo/src/a.ts", "/repo")).toBe("src/a.ts");
  });
});

describe("formats per host", () => {
  it("never gives a host a format it reads itself (its definition's nativeRuleFormats)", () => {
    const native = (id: string) => hostById(id)!.nativeRuleFormats;
    expect(defaultFormatsFor(native("claude-code"))).not.toContain("claude");
    expect(defaultFormatsFor(native("copilot"))).toEqual(["cursor", "continue", "qwen", "windsurf", "rulesync", "ruler"]);
    expect(defaultFormatsFor(native("opencode"))).toEqual([...RULE_FORMATS]);
    expect(formatsForHost(native("claude-code"), ["claude", "copilot"])).toEqual(["copilot"]);
    fc.assert(
      fc.property(fc.constantFrom(...hostDefinitions()), fc.subarray([...RULE_FORMATS]), (host, wanted) => {
        for (const format of formatsForHost(host.nativeRuleFormats, wanted)) expect(host.nativeRuleFormats).not.toContain(format);
      }),
    );
  });
});
