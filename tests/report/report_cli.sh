#!/usr/bin/env bash
# `railyard report show|summary|html` from the command line: exit codes (0 pass, 1 fail,
# 2 bad input), errors naming the file and line, show over http:// (libcurl), --json
# outputs that parse, no colour when stdout is not a terminal, and the fleet summary over
# a generated fleet in the receiver's layout.
set -euo pipefail
railyard=$1 src=$3
golden=$src/tests/report/golden
tmp=$(mktemp -d)
server=""
cleanup() {
  if [[ -n $server ]]; then kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; fi
  rm -rf "$tmp"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
expect_rc() {  # expect_rc RC CMD...: runs CMD, stdout to $tmp/out, stderr to $tmp/err
  local want=$1 rc=0
  shift
  "$@" >"$tmp/out" 2>"$tmp/err" || rc=$?
  [[ $rc == "$want" ]] || { cat "$tmp/out" "$tmp/err" >&2; fail "$* exited $rc, expected $want"; }
}

# show: the exit code follows the report's result; the text is the golden text.
expect_rc 0 "$railyard" report show "$golden/hgx-pass.json"
cmp "$tmp/out" "$golden/hgx-pass.show.txt" || fail "show hgx-pass differs from its golden text"
expect_rc 1 "$railyard" report show "$golden/hgx-pfc-link.json"
cmp "$tmp/out" "$golden/hgx-pfc-link.show.txt" || fail "show hgx-pfc-link differs from its golden text"
grep -q $'\033' "$tmp/out" && fail "colour codes written to a pipe"
expect_rc 1 "$railyard" report show --json "$golden/storage-problem.json"
python3 - "$tmp/out" <<'PY' || fail "show --json"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["result"] == "fail" and j["node"] == "stor-r005-n03", j
assert j["problems"][0]["hint"].startswith("RDMA NICs are missing"), j["problems"]
PY

# One verdict: a report whose result says pass while its checks fail is FAIL, exit 1, as the
# summary counts it.
python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); j["result"]="pass"; json.dump(j, open(sys.argv[2],"w"))' \
  "$golden/hgx-pfc-link.json" "$tmp/contradicts.json"
expect_rc 1 "$railyard" report show "$tmp/contradicts.json"
head -1 "$tmp/out" | grep -q "^hgx-r001-n02  FAIL  " || fail "contradiction shown as: $(head -2 "$tmp/out")"
grep -q "CONTRADICTS ITSELF" "$tmp/out" || fail "contradiction not flagged"

# A number no double holds: a clean error with its place, never an abort.
sed 's/"schema": 1,/"schema": 1, "future": 1e999,/' "$golden/hgx-pass.json" >"$tmp/huge.json"
expect_rc 2 "$railyard" report show "$tmp/huge.json"
grep -q "huge.json: line 2, column 26: number out of range (no double holds it)" "$tmp/err" || fail "1e999: $(cat "$tmp/err")"

# On a terminal (script(1) gives it one): colour, unless NO_COLOR is set.
command -v script >/dev/null || fail "script(1) is missing (Debian: bsdutils)"
script -qec "'$railyard' report show '$golden/hgx-pfc-link.json'" /dev/null >"$tmp/tty" || true
grep -q $'\033\\[1;31mFAIL' "$tmp/tty" || fail "no colour on a terminal"
NO_COLOR=1 script -qec "'$railyard' report show '$golden/hgx-pfc-link.json'" /dev/null >"$tmp/tty" || true
grep -q $'\033' "$tmp/tty" && fail "colour on a terminal with NO_COLOR set"
grep -q "FAIL  rail.5.pfc" "$tmp/tty" || fail "show on a terminal: $(head -3 "$tmp/tty")"

# Bad input: exit 2, the file named, the line and column given.
expect_rc 2 "$railyard" report show "$tmp/missing.json"
grep -q "railyard report show: $tmp/missing.json: No such file or directory" "$tmp/err" || fail "missing file: $(cat "$tmp/err")"
printf '{\n  "schema": 1,\n  "node": "n1"\n  "result": "pass"\n}\n' >"$tmp/broken.json"
expect_rc 2 "$railyard" report show "$tmp/broken.json"
grep -qx "railyard report show: $tmp/broken.json: line 4, column 10: unexpected string literal; expected '}'" "$tmp/err" || fail "broken: $(cat "$tmp/err")"
echo '{"schema": 1, "node": "n1", "result": "pass"}' >"$tmp/notreport.json"
expect_rc 2 "$railyard" report show "$tmp/notreport.json"
grep -q "not a railyard report: no 'checks'" "$tmp/err" || fail "not a report: $(cat "$tmp/err")"

# show over HTTP, from a server on 127.0.0.1 with a port of its own choosing.
mkdir "$tmp/www"
cp "$golden/gpu4-downtrained-nvmeof.json" "$tmp/www/report.json"
python3 -u - "$tmp/www" >"$tmp/port" 2>/dev/null <<'PY' &
import functools, http.server, sys
handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=sys.argv[1])
httpd = http.server.HTTPServer(("127.0.0.1", 0), handler)
print(httpd.server_address[1])
httpd.serve_forever()
PY
server=$!
for _ in $(seq 100); do [[ -s $tmp/port ]] && break; sleep 0.05; done
port=$(cat "$tmp/port")
[[ -n $port ]] || fail "the test's HTTP server did not start"
expect_rc 1 "$railyard" report show "http://127.0.0.1:$port/report.json"
cmp "$tmp/out" "$golden/gpu4-downtrained-nvmeof.show.txt" || fail "show over http differs from the file's"
expect_rc 2 "$railyard" report show "http://127.0.0.1:$port/nothing.json"
grep -q "http://127.0.0.1:$port/nothing.json: HTTP 404" "$tmp/err" || fail "404: $(cat "$tmp/err")"
expect_rc 2 "$railyard" report show "ftp://127.0.0.1:$port/report.json"

# summary over a generated fleet in the receiver's layout, with one unreadable report.
python3 "$src/tests/report/make_reports.py" "$src" "$tmp/fleet" --count 120 --seed 7
cp "$golden/storage-problem.json" "$tmp/fleet/extra.json"
expect_rc 1 "$railyard" report summary "$tmp/fleet"
grep -q "^fleet $tmp/fleet: 121 nodes (" "$tmp/out" || fail "summary header: $(head -3 "$tmp/out")"
grep -q "^by driver release" "$tmp/out" || fail "summary: no driver releases"
expect_rc 1 "$railyard" report summary --json "$tmp/fleet"
python3 - "$tmp/out" "$tmp/fleet" <<'PY' || fail "summary --json"
import json, os, sys
j = json.load(open(sys.argv[1]))
nodes = {}
for root, _, files in os.walk(sys.argv[2]):
    for f in files:
        if not f.endswith(".json"):
            continue
        r = json.load(open(os.path.join(root, f)))
        # The latest is the one the receiver took last (<boot>.received).
        received = os.path.join(root, f[:-5] + ".received")
        r["_at"] = open(received).read().strip() if os.path.exists(received) else r["started_at"]
        if r["node"] not in nodes or r["_at"] > nodes[r["node"]]["_at"]:
            nodes[r["node"]] = r
assert j["nodes"] == len(nodes) == 121, (j["nodes"], len(nodes))
assert j["pass"] == sum(r["result"] == "pass" for r in nodes.values()), j["pass"]
assert j["pass"] + j["fail"] == j["nodes"]
assert sum(g["nodes"] for g in j["by_recipe"]) == 121
assert len(j["slowest"]) == 10 and j["slowest"][0]["total_ms"] >= j["slowest"][-1]["total_ms"]
assert j["unreadable"] == []
PY
echo '{"schema": 1, "node": ' >"$tmp/fleet/zz-truncated.json"
expect_rc 2 "$railyard" report summary "$tmp/fleet"
grep -q "^railyard report summary: $tmp/fleet/zz-truncated.json: line 2, column 1: unexpected end of input" "$tmp/err" ||
  fail "unreadable report: $(cat "$tmp/err")"
grep -q "^fleet $tmp/fleet: 121 nodes" "$tmp/out" || fail "the rest is still summarised"
# One file with a number no double holds, or a key twice: listed as unreadable, the rest
# summarised and drawn.
sed 's/"schema": 1,/"schema": 1e999,/' "$golden/hgx-pass.json" >"$tmp/fleet/zz-huge.json"
expect_rc 2 "$railyard" report summary "$tmp/fleet"
grep -q "zz-huge.json: line 2, column 13: number out of range" "$tmp/err" || fail "1e999 in a fleet: $(cat "$tmp/err")"
grep -q "^fleet $tmp/fleet: 121 nodes" "$tmp/out" || fail "the rest is still summarised beside 1e999"
expect_rc 2 "$railyard" report html "$tmp/fleet" -o "$tmp/huge.html"
grep -q "121 nodes" "$tmp/err" || fail "html beside 1e999: $(cat "$tmp/err")"
rm "$tmp/fleet/zz-huge.json"
expect_rc 2 "$railyard" report summary "$tmp/nowhere"
# A file whose name is not UTF-8, with an escape sequence in it: listed escaped, as text and
# as JSON, never an abort.
mkdir "$tmp/odd"
printf '{' >"$tmp/odd/"$'bad\xff\e[2J.json'
expect_rc 2 "$railyard" report summary "$tmp/odd"
grep -q 'bad\\xff\\x1b\[2J.json: ' "$tmp/out" || fail "odd name, text: $(cat "$tmp/out")"
expect_rc 2 "$railyard" report summary --json "$tmp/odd"
python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); assert len(j["unreadable"]) == 1, j' "$tmp/out" ||
  fail "odd name, json: $(cat "$tmp/out")"

# html: written whole, exit 0; a directory that is not there is bad input.
rm "$tmp/fleet/zz-truncated.json"
expect_rc 0 "$railyard" report html "$tmp/fleet" -o "$tmp/fleet.html"
grep -q "<!DOCTYPE html>" "$tmp/fleet.html" || fail "html"
grep -q "121 nodes" "$tmp/err" || fail "html: $(cat "$tmp/err")"
expect_rc 2 "$railyard" report html "$tmp/nowhere" -o "$tmp/x.html"
[[ ! -e $tmp/x.html ]] || fail "html wrote a page for a missing directory"
echo "report_cli: ok"
