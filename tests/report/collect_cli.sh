#!/usr/bin/env bash
# `railyard collect` as scripts and the end-to-end tests use it: exactly one line on stdout
# once it listens (`railyard collect: listening on 127.0.0.1:PORT`, port 0 choosing one),
# reports POSTed and stored as DIR/<node>/<boot>.json, the token file, the body limit,
# SIGTERM and SIGINT stopping it with exit 0, and bad arguments refused with exit 2.
set -euo pipefail
railyard=$1 src=$3
golden=$src/tests/report/golden
tmp=$(mktemp -d)
pid=""
cleanup() {
  if [[ -n $pid ]]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
  rm -rf "$tmp"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; [[ -f $tmp/err ]] && cat "$tmp/err" >&2; exit 1; }

# start ARGS...: starts the receiver, waits for its line, sets $pid and $port.
start() {
  : >"$tmp/out"
  "$railyard" collect "$@" >"$tmp/out" 2>"$tmp/err" &
  pid=$!
  for _ in $(seq 200); do
    [[ -s $tmp/out ]] && break
    kill -0 "$pid" 2>/dev/null || fail "collect exited before listening"
    sleep 0.05
  done
  local line
  line=$(cat "$tmp/out")
  [[ $line =~ ^railyard\ collect:\ listening\ on\ 127\.0\.0\.1:([0-9]+)$ ]] || fail "first line: '$line'"
  port=${BASH_REMATCH[1]}
  ((port > 0)) || fail "port 0 was not replaced by the port chosen"
}
# stop SIGNAL: the receiver must exit 0, having printed nothing more on stdout.
stop() {
  local rc=0
  kill "-$1" "$pid"
  wait "$pid" || rc=$?
  pid=""
  [[ $rc == 0 ]] || fail "collect exited $rc on SIG$1"
  [[ $(wc -l <"$tmp/out") == 1 ]] || fail "stdout has more than the one line: $(cat "$tmp/out")"
  grep -q "railyard collect: stopped (SIG$1)" "$tmp/err" || fail "no stop message"
}
# post FILE [TOKEN]: prints the HTTP status and the reply.
post() {
  python3 - "$port" "$1" "${2:-}" <<'PY'
import sys, urllib.error, urllib.request
port, path, token = sys.argv[1], sys.argv[2], sys.argv[3]
headers = {"Content-Type": "application/json"}
if token:
    headers["Authorization"] = "Bearer " + token
req = urllib.request.Request("http://127.0.0.1:%s/api/v1/reports" % port, data=open(path, "rb").read(), headers=headers)
try:
    r = urllib.request.urlopen(req, timeout=10)
    print(r.status, r.read().decode().strip())
except urllib.error.HTTPError as e:
    print(e.code, e.read().decode().strip())
PY
}

start --listen 127.0.0.1:0 --dir "$tmp/reports"
reply=$(post "$golden/hgx-pfc-link.json")
boot=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["host"]["boot_id"])' "$golden/hgx-pfc-link.json")
[[ $reply == "201 {\"stored\":\"hgx-r001-n02/$boot.json\",\"node\":\"hgx-r001-n02\",\"result\":\"fail\"}" ]] || fail "post: $reply"
cmp "$tmp/reports/hgx-r001-n02/$boot.json" "$golden/hgx-pfc-link.json" || fail "stored report differs from the one sent"
echo '{"schema": 1' >"$tmp/bad.json"
[[ $(post "$tmp/bad.json") == 400* ]] || fail "malformed JSON not refused"
echo '{"a": 1}' >"$tmp/other.json"
[[ $(post "$tmp/other.json") == "422 {\"error\":\"not a railyard report: no 'schema'\"}" ]] || fail "non-report not refused"
stop TERM
# The stored reports are a fleet `railyard report` reads.
"$railyard" report summary "$tmp/reports" >"$tmp/summary" && fail "summary of a failing fleet exited 0"
grep -q "1 node (1 report)" "$tmp/summary" || fail "summary: $(cat "$tmp/summary")"

# A token file and a body limit.
printf 's3cret-token\n' >"$tmp/token"
start --listen 127.0.0.1:0 --dir "$tmp/reports" --token-file "$tmp/token" --max-body 200000
[[ $(post "$golden/hgx-pass.json") == 401* ]] || fail "no token accepted"
[[ $(post "$golden/hgx-pass.json" wrong) == 401* ]] || fail "wrong token accepted"
[[ $(post "$golden/hgx-pass.json" s3cret-token) == 201* ]] || fail "right token refused"
head -c 300000 /dev/zero | tr '\0' ' ' >"$tmp/big.json"
[[ $(post "$tmp/big.json" s3cret-token) == 413* ]] || fail "oversized body accepted"
stop INT
[[ $(find "$tmp/reports" -name '*.json' | wc -l) == 2 ]] || fail "expected two stored reports"

# Per-node tokens: railyard node-token prints what the receiver with the same secret takes.
head -c 32 /dev/urandom | base64 >"$tmp/node-secret"
token=$("$railyard" node-token --node-secret "$tmp/node-secret" HGX-R001-N01)
[[ $token =~ ^[0-9a-f]{64}$ ]] || fail "node-token printed '$token'"
other=$("$railyard" node-token --node-secret "$tmp/node-secret" hgx-r001-n02)
start --listen 127.0.0.1:0 --dir "$tmp/reports" --node-secret "$tmp/node-secret"
[[ $(post "$golden/hgx-pass.json" "$token") == 201* ]] || fail "the node's own token refused"
[[ $(post "$golden/hgx-pass.json" "$other") == 403* ]] || fail "another node's token accepted"
[[ $(post "$golden/hgx-pass.json") == 401* ]] || fail "no token accepted"
stop TERM
"$railyard" node-token --node-secret "$tmp/node-secret" 'bad name!' >"$tmp/out" 2>"$tmp/err" && fail "bad host name"
grep -q "is not a host name" "$tmp/err" || fail "node-token: $(cat "$tmp/err")"
printf 'short\n' >"$tmp/short-secret"
"$railyard" node-token --node-secret "$tmp/short-secret" n1 >"$tmp/out" 2>"$tmp/err" && fail "short secret"
grep -q "at least 16 are needed" "$tmp/err" || fail "node-token: $(cat "$tmp/err")"

# Bad arguments: exit 2 with what is allowed.
expect_bad() {
  local rc=0
  "$railyard" collect "$@" >"$tmp/out" 2>"$tmp/err" || rc=$?
  [[ $rc == 2 ]] || fail "collect $* exited $rc, expected 2"
  [[ ! -s $tmp/out ]] || fail "collect $* printed on stdout"
}
expect_bad --listen 127.0.0.1 --dir "$tmp/reports"
grep -q "expected ADDRESS:PORT" "$tmp/err" || fail "no port: $(cat "$tmp/err")"
expect_bad --listen 127.0.0.1:70000 --dir "$tmp/reports"
expect_bad --listen 127.0.0.1:0 --dir "$tmp/reports" --token-file "$tmp/none"
grep -q "$tmp/none: No such file or directory" "$tmp/err" || fail "missing token file: $(cat "$tmp/err")"
: >"$tmp/empty-token"
expect_bad --listen 127.0.0.1:0 --dir "$tmp/reports" --token-file "$tmp/empty-token"
echo "collect_cli: ok"
