#!/bin/sh
# foreign_db_test.sh GPUPROBE: another program's SQLite database given as --db is refused by
# every verb that takes --db, before any work, and its bytes (sha256) are unchanged: one with
# user_version 1 (a common first version), one with another application id, one empty of
# tables but with a user_version.
set -u
bin=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0
python3 - "$work" <<'PY'
import sqlite3, sys
d = sys.argv[1]
db = sqlite3.connect(d + "/v1.db")
db.executescript("CREATE TABLE runs (id INTEGER PRIMARY KEY, who TEXT); INSERT INTO runs VALUES (1, 'app'); PRAGMA user_version = 1;")
db.close()
db = sqlite3.connect(d + "/appid.db")
db.executescript("CREATE TABLE t (x); PRAGMA application_id = 1234;")
db.close()
db = sqlite3.connect(d + "/bare.db")
db.executescript("PRAGMA user_version = 7;")
db.close()
PY
for db in v1 appid bare; do
  f=$work/$db.db
  before=$(sha256sum "$f" | cut -d' ' -f1)
  for verb in "history" "history compare" "history compare 1 2" "bench memory.triad --seconds 0.05 --save"; do
    # shellcheck disable=SC2086
    "$bin" $verb --db "$f" >"$work/out" 2>&1
    rc=$?
    if [ "$rc" != 2 ] || ! grep -q "not a gpuprobe history" "$work/out"; then
      echo "FAIL: $db: '$verb' exit $rc:"; head -3 "$work/out"; fail=1
    fi
    if grep -q "memory.triad" "$work/out"; then echo "FAIL: $db: '$verb' ran the bench before refusing"; fail=1; fi
    after=$(sha256sum "$f" | cut -d' ' -f1)
    if [ "$before" != "$after" ]; then echo "FAIL: $db: '$verb' changed the file"; fail=1; fi
  done
  if ls "$work" | grep -q "^$db.db-"; then echo "FAIL: $db: a journal or WAL file was left"; fail=1; fi
done
if [ "$fail" = 0 ]; then echo "foreign databases: refused by every --db verb, sha256 unchanged"; fi
exit "$fail"
