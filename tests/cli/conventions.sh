#!/usr/bin/env bash
# How both programs speak: every diagnostic line starts with the program and command, parse
# errors list the commands there are, a file that cannot be read says why, `check` writes
# everything to standard error as compilers do (or one JSON document with --json), -q and -v
# set the level, and when standard error is the journal every line carries its priority.
set -uo pipefail
railyard=$1 agent=$2 src=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "conventions: $*"; exit 1; }

# expect RC PATTERN CMD...: CMD exits RC ("-": any) and its standard error matches PATTERN (grep -E).
expect() {
  local want=$1 pattern=$2
  shift 2
  "$@" >"$tmp/out" 2>"$tmp/err"
  local rc=$?
  [[ $want == - || $rc -eq $want ]] || fail "$*: exit $rc, want $want: $(cat "$tmp/err")"
  grep -Eq -- "$pattern" "$tmp/err" || fail "$*: standard error does not match '$pattern': $(cat "$tmp/err")"
}

# Parse errors: named, with the commands there are.
expect 2 "^railyard: unknown command 'bogus'; commands: check, show, .*qemu \('railyard --help' says more\)$" \
  "$railyard" bogus
expect 2 "^railyard: a command is required; commands: check, " "$railyard"
expect 2 "^railyard report: unknown command 'bogus'; commands: show, summary, html, topology " "$railyard" report bogus
expect 2 "^railyard check: The following argument was not expected: --bogus " "$railyard" check --bogus
expect 2 "^railyard-firstboot: unknown command 'bogus'; commands: check, discover, plan, run, verify, target, responder, sweep-worker " "$agent" bogus
expect 2 "^railyard-firstboot plan: " "$agent" plan --bogus
"$railyard" --help | grep -q -- "--verbose" || fail "--help names no --verbose"

# A file that cannot be read says why.
expect 1 "^$tmp/absent.toml: error: cannot read file: No such file or directory$" "$railyard" check "$tmp/absent.toml"
expect 1 "^$tmp: error: cannot read file: Is a directory$" "$railyard" check "$tmp"
expect 2 "^railyard report show: $tmp/absent.json: No such file or directory$" "$railyard" report show "$tmp/absent.json"
expect 2 "^$tmp/absent.toml: error: cannot read file: No such file or directory$" \
  "$agent" check --recipe "$tmp/absent.toml"
if command -v setpriv >/dev/null && [[ $(id -u) -eq 0 ]] && setpriv --reuid=65534 --regid=65534 --clear-groups "$railyard" --version >/dev/null 2>&1; then
  echo 'name = "x"' >"$tmp/secret.toml"
  chmod 600 "$tmp/secret.toml"
  chmod 755 "$tmp"
  expect 1 "^$tmp/secret.toml: error: cannot read file: Permission denied$" \
    setpriv --reuid=65534 --regid=65534 --clear-groups "$railyard" check "$tmp/secret.toml"
fi

# check: diagnostics and the summary on standard error, nothing on standard output.
cd "$src" || exit 2
printf 'name = "bad"\n[fabric]\nmtu = 1\n' >"$tmp/bad.toml"
expect 1 "^$tmp/bad.toml:3:7: error: fabric.mtu: 1 is out of range" "$railyard" check "$tmp/bad.toml"
[[ ! -s $tmp/out ]] || fail "check wrote to standard output: $(cat "$tmp/out")"
grep -Eq "^[0-9]+ error\(s\) in 1 of 1 file\(s\)$" "$tmp/err" || fail "check: no summary: $(cat "$tmp/err")"
expect 0 "^recipes/qemu-virt.toml: ok \(recipe\)$" "$railyard" check recipes/qemu-virt.toml
"$railyard" -q check recipes/qemu-virt.toml 2>"$tmp/err" || fail "check -q: exit $?"
[[ ! -s $tmp/err ]] || fail "check -q printed: $(cat "$tmp/err")"
"$railyard" check --json recipes/qemu-virt.toml "$tmp/bad.toml" >"$tmp/out" 2>"$tmp/err"
[[ $? -eq 1 ]] || fail "check --json: exit status"
[[ ! -s $tmp/err ]] || fail "check --json wrote to standard error: $(cat "$tmp/err")"
python3 - "$tmp" <<'PY' || fail "check --json: $(cat "$tmp/out")"
import json, sys
d = json.load(open(sys.argv[1] + "/out"))
assert d["ok"] is False, d
assert d["files"] == [{"path": "recipes/qemu-virt.toml", "kind": "recipe", "ok": True},
                      {"path": sys.argv[1] + "/bad.toml", "kind": "recipe", "ok": False}], d["files"]
e = [x for x in d["errors"] if x["message"].startswith("fabric.mtu")]
assert e and e[0]["file"] == sys.argv[1] + "/bad.toml" and e[0]["line"] == 3 and e[0]["column"] == 7, d["errors"]
PY

# -v: what the agent read and waited for, as debug lines (the plan for this machine may fail).
expect - "^railyard-firstboot: debug: recipe: recipes/qemu-virt.toml \('qemu-virt'\)$" \
  "$agent" -v --recipe recipes/qemu-virt.toml --node "$tmp/absent.toml" plan
grep -q "^railyard-firstboot: debug: discovered " "$tmp/err" || fail "-v: no discovery line: $(cat "$tmp/err")"
"$agent" --recipe recipes/qemu-virt.toml --node "$tmp/absent.toml" plan 2>"$tmp/err" >/dev/null
grep -q "debug:" "$tmp/err" && fail "debug lines without -v: $(cat "$tmp/err")"

# Standard error is the journal (JOURNAL_STREAM names it): every line starts with <N>.
: >"$tmp/journal"
# stat reads the journal's device and inode, not what the command appends to it.
# shellcheck disable=SC2094
JOURNAL_STREAM=$(stat -c '%d:%i' "$tmp/journal") "$railyard" report show "$tmp/absent.json" 2>>"$tmp/journal"
grep -qx "<3>railyard report show: $tmp/absent.json: No such file or directory" "$tmp/journal" ||
  fail "journal: $(cat "$tmp/journal")"
: >"$tmp/journal"
# stat reads the journal's device and inode, not what the command appends to it.
# shellcheck disable=SC2094
JOURNAL_STREAM=$(stat -c '%d:%i' "$tmp/journal") "$railyard" check "$tmp/bad.toml" 2>>"$tmp/journal"
grep -q "^<3>$tmp/bad.toml:3:7: error: " "$tmp/journal" || fail "journal, check: $(cat "$tmp/journal")"
grep -Eq "^<6>[0-9]+ error\(s\) in 1 of 1 file\(s\)$" "$tmp/journal" || fail "journal, check summary: $(cat "$tmp/journal")"
: >"$tmp/journal"
# stat reads the journal's device and inode, not what the command appends to it.
# shellcheck disable=SC2094
JOURNAL_STREAM=$(stat -c '%d:%i' "$tmp/journal") "$agent" -v --recipe recipes/qemu-virt.toml --node "$tmp/absent.toml" \
  plan >/dev/null 2>>"$tmp/journal"
grep -q "^<7>railyard-firstboot: debug: recipe: " "$tmp/journal" || fail "journal, debug: $(cat "$tmp/journal")"
# Another stream named: no prefixes.
: >"$tmp/other"
JOURNAL_STREAM=1:1 "$railyard" report show "$tmp/absent.json" 2>>"$tmp/other"
grep -q "^<" "$tmp/other" && fail "a prefix on a stream that is not the journal: $(cat "$tmp/other")"
echo "conventions: ok"
