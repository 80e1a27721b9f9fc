# Usage: python3 scripts/audit-family-db.py test/audit/logs/opencode/with-agentsmd.jsonl test/audit/logs/opencode/session.db
# Builds test/audit/logs/<agent>/session.db (+ -wal): OpenCode's session/message/part schema, the
# recorded fixture's rows (/REPO, /HOME kept), small pages so rows overflow and trees have interior
# pages; the last transaction left in the write-ahead log (the connection is copied while open).
import json, shutil, sqlite3, sys, os
src, out = sys.argv[1], sys.argv[2]
for suffix in ("", "-wal", "-shm"):
    if os.path.exists(out + suffix): os.remove(out + suffix)
tmp = out + ".building"
for suffix in ("", "-wal", "-shm"):
    if os.path.exists(tmp + suffix): os.remove(tmp + suffix)
db = sqlite3.connect(tmp, isolation_level=None)
db.execute("PRAGMA page_size=1024")
db.execute("PRAGMA journal_mode=WAL")
db.execute("PRAGMA wal_autocheckpoint=0")
db.execute("""CREATE TABLE `session` (`id` text PRIMARY KEY, `project_id` text NOT NULL, `parent_id` text, `slug` text NOT NULL, `directory` text NOT NULL, `title` text NOT NULL, `version` text NOT NULL, `time_created` integer NOT NULL, `time_updated` integer NOT NULL)""")
db.execute("""CREATE TABLE `message` (`id` text PRIMARY KEY, `session_id` text NOT NULL, `time_created` integer NOT NULL, `time_updated` integer NOT NULL, `data` text NOT NULL)""")
db.execute("""CREATE TABLE `part` (`id` text PRIMARY KEY, `message_id` text NOT NULL, `session_id` text NOT NULL, `time_created` integer NOT NULL, `time_updated` integer NOT NULL, `data` text NOT NULL)""")
db.execute("CREATE INDEX `part_session_idx` ON `part` (`session_id`)")
lines = [json.loads(l) for l in open(src) if l.strip()][1:]
db.execute("BEGIN")
# An older session of another project first (listed, never read into this one's lines).
db.execute("INSERT INTO session VALUES ('ses_0old','p','' ,'old','/OTHER','old','1',1000,1000)")
db.execute("UPDATE session SET parent_id=NULL WHERE id='ses_0old'")
db.execute("INSERT INTO message VALUES ('msg_0old','ses_0old',1000,1000,?)", (json.dumps({"role":"user"}),))
db.execute("INSERT INTO part VALUES ('prt_0old','msg_0old','ses_0old',1000,1000,?)", (json.dumps({"type":"text","text":"OTHER-PROJECT " * 300}),))
db.execute("COMMIT")
db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
last = len(lines) // 2
for index, line in enumerate(lines):
    if index == last: db.execute("BEGIN")
    data = json.dumps(line["data"])
    t = line["table"]
    if t == "session":
        db.execute("INSERT INTO session VALUES (?,?,?,?,?,?,?,?,?)", (line["id"], "p", line["parent"], "s", line["directory"], "t", "1", line["time"], line["time"] + 1))
    elif t == "message":
        db.execute("INSERT INTO message VALUES (?,?,?,?,?)", (line["id"], line["session"], line["time"], line["time"], data))
    elif t == "part":
        db.execute("INSERT INTO part VALUES (?,?,?,?,?,?)", (line["id"], line["message"], line["session"], line["time"], line["time"], data))
    if index == 3: db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
db.execute("COMMIT")
shutil.copyfile(tmp, out)
shutil.copyfile(tmp + "-wal", out + "-wal")
db.close()
for suffix in ("", "-wal", "-shm"):
    if os.path.exists(tmp + suffix): os.remove(tmp + suffix)
print(os.path.getsize(out), os.path.getsize(out + "-wal"))
