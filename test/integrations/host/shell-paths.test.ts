/**
 * The shell-command path extractor over real command lines (as models write them for Codex's
 * shell tool), the apply_patch header parser, and fast-check properties: the extractor never
 * throws and never returns a path the command does not name.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { posix } from "node:path";
import { parse } from "shell-quote";
import { flattenScript, PLAIN_LINE, shellCommandPaths, type ShellPath } from "../../../src/integrations/host/shell-paths.js";
import { patchTargets } from "../../../src/integrations/host/targets.js";

const CWD = "/repo";
const HOME = "/home/me";

/** `path` for read, `L:path` for list, `W:path` for write, `G:` glob, `?:` only if it exists, `R:` from the git root. */
function show(p: ShellPath): string {
  const rel = p.gitRoot ? `R:${p.gitRoot.relative}` : p.path.startsWith(`${CWD}/`) ? p.path.slice(CWD.length + 1) : p.path === CWD ? "." : p.path;
  const prefix = (p.use === "list" ? "L:" : p.use === "write" ? "W:" : "") + (p.glob ? "G:" : "") + (p.ifExists ? "?:" : "");
  return prefix + rel;
}

const TABLE: Array<[string, string[] | null]> = [
  // plain readers
  ["cat pkg/a.ts", ["pkg/a.ts"]],
  ["cat -n src/index.ts", ["src/index.ts"]],
  ["cat README.md package.json", ["README.md", "package.json"]],
  ["head -n 50 src/cli/main.ts", ["src/cli/main.ts"]],
  ["head -50 src/cli/main.ts", ["src/cli/main.ts"]],
  ["head -c 200 data.bin", ["data.bin"]],
  ["tail -n +20 docs/guide.md", ["docs/guide.md"]],
  ["tail -f logs/app.log", ["logs/app.log"]],
  ["less +G notes.txt", ["notes.txt"]],
  ["more CHANGELOG.md", ["CHANGELOG.md"]],
  ["nl -ba src/core/paths.ts", ["src/core/paths.ts"]],
  ["nl -ba src/core/paths.ts | sed -n '1,120p'", ["src/core/paths.ts"]],
  ["bat --style=plain -r 10:40 src/a.rs", ["src/a.rs"]],
  ["wc -l src/*.ts", ["G:src/*.ts"]],
  ["wc -l < input.txt", ["input.txt"]],
  ["diff -u old/a.txt new/a.txt", ["old/a.txt", "new/a.txt"]],
  ["file bin/tool", ["bin/tool"]],
  ["stat -c %s build/out.js", ["build/out.js"]],
  // sed / awk
  ["sed -n '1,200p' packages/api/src/handler.ts", ["packages/api/src/handler.ts"]],
  ["sed -n 1,80p packages/web/App.tsx", ["packages/web/App.tsx"]],
  ["sed -e 's/a/b/' -e 's/c/d/' conf/x.ini", ["conf/x.ini"]],
  ["sed -n -f script.sed data.txt", ["script.sed", "data.txt"]],
  ["sed -i 's/foo/bar/g' src/a.ts", ["src/a.ts"]],
  ["awk '{print $1}' logs/access.log", ["logs/access.log"]],
  ["awk -F: '{print $1}' /etc/passwd", ["/etc/passwd"]],
  ["awk -v n=3 'NR<=n' a.csv b.csv", ["a.csv", "b.csv"]],
  ["awk -f prog.awk FS=, data.csv", ["prog.awk", "data.csv"]],
  // grep / rg / ag
  ["grep -n TODO src/index.ts", ["src/index.ts"]],
  ["grep -rn 'createSession' src/", ["src"]],
  ["grep -rn createSession", ["L:."]],
  ["grep -R --include='*.ts' -e foo -e bar lib test", ["lib", "test"]],
  ["grep -rnA 3 'x' pkg", ["pkg"]],
  ["grep foo", []],
  ["cat a.log | grep ERROR", ["a.log"]],
  ["rg -n 'fn main' crates/core", ["crates/core"]],
  ["rg TODO", ["L:."]],
  ["rg --files packages/api", ["packages/api"]],
  ["rg -g '*.md' -i agents docs", ["docs"]],
  ["rg -e foo -e bar src test", ["src", "test"]],
  ["ag TODO lib", ["lib"]],
  ["ps aux | rg node", []],
  // listings
  ["ls", ["L:."]],
  ["ls -la packages/api", ["L:packages/api"]],
  ["ls -1 src/integrations/*", ["L:G:src/integrations/*"]],
  ["find . -name '*.ts' -not -path './node_modules/*'", ["L:."]],
  ["find src test -type f", ["L:src", "L:test"]],
  ["find -name AGENTS.md", ["L:."]],
  ["tree -L 2 packages", ["L:packages"]],
  ["du -sh dist", ["L:dist"]],
  // git
  ["git show HEAD:src/index.ts", ["R:src/index.ts"]],
  ["git show HEAD~1:./local.ts", ["local.ts"]],
  ["git diff -- src/a.ts src/b.ts", ["src/a.ts", "src/b.ts"]],
  ["git diff main src/a.ts", ["?:main", "?:src/a.ts"]],
  ["git log --oneline -n 5 -- docs/", ["docs"]],
  ["git --no-pager log -p src/session", ["?:src/session"]],
  ["git -C packages/api diff -- README.md", ["packages/api/README.md"]],
  ["git status", []],
  ["git blame -L 10,20 src/x.ts", ["?:src/x.ts"]],
  // cd, sequences, subshells
  ["cd packages/api && cat src/handler.ts", ["packages/api/src/handler.ts"]],
  ["cd packages/api; ls; cd ../web && cat App.tsx", ["L:packages/api", "packages/web/App.tsx"]],
  ["(cd sub && cat a.txt); cat b.txt", ["sub/a.txt", "b.txt"]],
  ["cd /abs/dir && cat x", ["/abs/dir/x"]],
  ["cd $SOMEWHERE && cat x && cat /etc/hosts", ["/etc/hosts"]],
  ["cd ~ && cat .bashrc", ["/home/me/.bashrc"]],
  ["cat ~/notes.md", ["/home/me/notes.md"]],
  ["cat $HOME/notes.md", ["/home/me/notes.md"]],
  ['cat "$X/file"', []],
  // quoting, redirections, wrappers, shells
  ["cat 'dir with space/a b.md'", ["dir with space/a b.md"]],
  ['cat "weird \\"name\\".txt"', ['weird "name".txt']],
  ["cat a\\ b.txt", ["a b.txt"]],
  ["cat src/a.ts 2>/dev/null || echo missing", ["src/a.ts"]],
  ["cat src/a.ts > out/copy.ts", ["src/a.ts", "W:out/copy.ts"]],
  ["echo hi >> notes/log.txt", ["W:notes/log.txt"]],
  ["cat > docs/new.md <<'EOF'\n# Title\ncat secret.txt\nEOF\ncat docs/new.md", ["W:docs/new.md", "docs/new.md"]],
  ["sudo cat /var/log/syslog", ["/var/log/syslog"]],
  ["timeout 5 cat slow.txt", ["slow.txt"]],
  ["env FOO=1 cat conf.txt", ["conf.txt"]],
  ["LC_ALL=C sort data/words.txt", ["data/words.txt"]],
  ["bash -lc 'cat pkg/a.txt'", ["pkg/a.txt"]],
  ["bash -lc \"cd pkg && sed -n '1,40p' a.txt\"", ["pkg/a.txt"]],
  ["sh -c 'ls src'", ["L:src"]],
  ["cp src/a.ts backup/a.ts", ["src/a.ts", "W:backup/a.ts"]],
  ["mv old.txt archive/", ["old.txt", "W:archive"]],
  ["mkdir -p newdir/sub && touch newdir/sub/x.ts", ["W:newdir/sub", "W:newdir/sub/x.ts"]],
  ["echo hi | tee out/log.txt", ["W:out/log.txt"]],
  ["cat a.txt # and cat b.txt", ["a.txt"]],
  ["cat a.txt\ncat b.txt", ["a.txt", "b.txt"]],
  ["cat \\\n  a.txt", ["a.txt"]],
  ["for f in src/*.ts; do echo $f; done", []],
  ["python3 scripts/build.py", []],
  ["npm test", []],
  ["cat ../other/x.md", ["/other/x.md"]],
  // unparseable: nothing at all
  ["cat $(git ls-files)", null],
  ["cat `ls`", null],
  ["diff <(sort a) <(sort b)", null],
  ["cat 'unterminated", null],
  ["cat <<EOF\nno end", null],
];

describe("shellCommandPaths over real command lines", () => {
  it("has at least 60 rows", () => expect(TABLE.length).toBeGreaterThanOrEqual(60));
  for (const [command, expected] of TABLE) {
    it(JSON.stringify(command), () => {
      const result = shellCommandPaths(command, { cwd: CWD, home: HOME });
      if (expected === null) {
        expect(result.ok).toBe(false);
        return;
      }
      expect(result.ok, result.ok ? "" : result.reason).toBe(true);
      if (result.ok) expect(result.paths.map(show)).toEqual(expected);
    });
  }

  it("refuses a command longer than the cap, and a relative cwd", () => {
    expect(shellCommandPaths(`cat ${"a".repeat(70_000)}`, { cwd: CWD }).ok).toBe(false);
    expect(shellCommandPaths("cat a", { cwd: "rel" }).ok).toBe(false);
  });

  it("says when the command printed a file's text, whole or in part", () => {
    const shown = (command: string) => {
      const r = shellCommandPaths(command, { cwd: CWD });
      return r.ok ? r.paths.map((p) => p.shown ?? "-") : null;
    };
    expect(shown("cat pkg/AGENTS.md")).toEqual(["whole"]);
    expect(shown("nl -ba a.md | head")).toEqual(["whole"]);
    expect(shown("sed -n '1,5p' a.md")).toEqual(["part"]);
    expect(shown("head -n 3 a.md")).toEqual(["part"]);
    expect(shown("bat -r 1:3 a.md")).toEqual(["part"]);
    expect(shown("sed -i 's/a/b/' a.md")).toEqual(["-"]);
    expect(shown("grep x a.md")).toEqual(["-"]);
  });

  it("skips ~ and $HOME words when no home is known", () => {
    const r = shellCommandPaths("cat ~/a $HOME/b c", { cwd: CWD });
    expect(r.ok && r.paths.map(show)).toEqual(["c"]);
  });

  it("flattenScript keeps quoted newlines and drops heredoc bodies", () => {
    expect(flattenScript("echo 'a\nb'\ncat x")).toBe("echo 'a\nb' ; cat x");
    expect(flattenScript("cat <<-EOF > f\n\tbody\n\tEOF\nls")).toBe("cat  <<HEREDOC  > f ; ls");
  });
});

describe("apply_patch headers (the shared patchTargets, deleted files included as Codex's hook uses it)", () => {
  it("reads every header kind, resolved against cwd, once each", () => {
    const patch = [
      "*** Begin Patch",
      "*** Add File: newdir/deep/b.txt",
      "+*** Update File: not/a/header.txt",
      "*** Update File: pkg/a.txt",
      "*** Move to: pkg/renamed.txt",
      "@@",
      "-x",
      "+y",
      "*** Delete File: /abs/gone.txt",
      "*** Update File: pkg/a.txt",
      "*** End Patch",
    ].join("\n");
    expect(patchTargets(patch, "/repo", { deleted: true })).toEqual(["/repo/newdir/deep/b.txt", "/repo/pkg/a.txt", "/repo/pkg/renamed.txt", "/abs/gone.txt"]);
  });
  it("tolerates CRLF and headers without a path", () => {
    expect(patchTargets("*** Add File: a.md\r\n+x\r\n", "/r", { deleted: true })).toEqual(["/r/a.md"]);
    expect(patchTargets("garbage\n***\n*** Add File: \n", "/r", { deleted: true })).toEqual([]);
  });
});

describe("properties", () => {
  const RUNS = Number(process.env.FUZZ_RUNS ?? 300);
  it("never throws on arbitrary text", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (text) => {
        const r = shellCommandPaths(text, { cwd: CWD, home: HOME });
        expect(typeof r.ok).toBe("boolean");
      }),
      { numRuns: RUNS * 3 },
    );
  });

  const name = fc.stringMatching(/^[a-z][a-z0-9._-]{0,6}$/);
  const relPath = fc.array(name, { minLength: 1, maxLength: 3 }).map((parts) => parts.join("/"));
  const quoted = (w: string) => fc.constantFrom(w, `'${w}'`, `"${w}"`);
  const program = fc.constantFrom(
    "cat",
    "head -n 5",
    "ls -la",
    "grep -rn pat",
    "rg pat",
    "sed -n 1,5p",
    "wc -l",
    "tree -L 2",
    "find",
    "echo",
    "python3",
    "git diff --",
    "nl -ba",
  );
  const simple = fc.tuple(program, fc.array(relPath.chain(quoted), { maxLength: 3 }));
  const sep = fc.constantFrom(" && ", " ; ", " | ", " || ", "\n");
  const script = fc.tuple(fc.option(relPath, { nil: undefined }), fc.array(fc.tuple(simple, sep), { minLength: 1, maxLength: 4 }));

  it("returns only absolute paths built from the cwd, the cd directory and the words the command names", () => {
    fc.assert(
      fc.property(script, ([cdDir, parts]) => {
        const words: string[] = [];
        let text = cdDir === undefined ? "" : `cd ${cdDir} && `;
        parts.forEach(([[prog, args], s], i) => {
          const plain = args.map((a) => a.replace(/^['"]|['"]$/g, ""));
          words.push(...plain);
          text += `${prog} ${args.join(" ")}${i < parts.length - 1 ? s : ""}`;
        });
        const r = shellCommandPaths(text, { cwd: CWD, home: HOME });
        expect(r.ok).toBe(true);
        if (!r.ok) return;
        const bases = [CWD, ...(cdDir === undefined ? [] : [posix.join(CWD, cdDir)])];
        const allowed = new Set<string>([...bases]);
        for (const b of bases) for (const w of words) allowed.add(posix.normalize(posix.join(b, w)));
        for (const p of r.paths) {
          expect(posix.isAbsolute(p.path)).toBe(true);
          expect(allowed.has(p.path), `${p.path} from ${JSON.stringify(text)}`).toBe(true);
        }
      }),
      { numRuns: RUNS },
    );
  });

  // shellCommandPaths reads a line of plain words without shell-quote (its first parse costs a hook
  // process about 0.7 ms); these pin that shortcut to what shell-quote gives.
  const plainWord = fc.stringMatching(/^[A-Za-z0-9_./,:=+@%-]{1,12}$/);
  const spaces = fc.stringMatching(/^ {1,3}$/);
  const plainLine = fc
    .tuple(
      fc.constantFrom(
        "cat",
        "sed",
        "ls",
        "git",
        "find",
        "cp",
        "mv",
        "bash",
        "sudo",
        "env",
        "timeout",
        "cd",
        "rg",
        "grep",
        "head",
        "npm",
        "X=1",
        "then",
        "/bin/cat",
        "./x",
      ),
      fc.array(fc.tuple(spaces, fc.oneof(plainWord, fc.constantFrom("-n", "-c", "-la", "--", "-C", "show", "HEAD:a.ts", "1,5p", "-t", "."))), { maxLength: 5 }),
    )
    .map(([first, rest]) => first + rest.map(([gap, word]) => gap + word).join(""));

  it("a line of plain characters is its words split at spaces, as shell-quote reads it", () => {
    fc.assert(
      fc.property(fc.oneof(plainLine, fc.stringMatching(PLAIN_LINE)), (line) => {
        expect(PLAIN_LINE.test(line)).toBe(true);
        expect(parse(line, (name: string) => `\u0000${name}\u0000`)).toEqual(line.split(" ").filter((word) => word !== ""));
      }),
      { numRuns: RUNS },
    );
  });

  it("a line of plain words gives what the shell-quote path gives (the same line ending in `;`)", () => {
    fc.assert(
      fc.property(plainLine, (line) => {
        expect(shellCommandPaths(line, { cwd: CWD, home: HOME })).toEqual(shellCommandPaths(`${line} ;`, { cwd: CWD, home: HOME }));
      }),
      { numRuns: RUNS },
    );
    // and the shortcut does find paths: `cat a.ts` reads a.ts, shown whole
    expect(shellCommandPaths("cat  src/a.ts", { cwd: CWD })).toEqual({ ok: true, paths: [{ path: `${CWD}/src/a.ts`, use: "read", shown: "whole" }] });
  });
});
