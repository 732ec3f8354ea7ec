#!/usr/bin/env bash
# docs/report.schema.json against reports: it is a valid draft 2020-12 schema; every report
# under tests/ (the golden reports, which are byte for byte what core's to_json writes)
# and a generated fleet validate; reports that break the contract do not.
set -euo pipefail
src=$3
python3 -c 'import jsonschema' 2>/dev/null ||
  { echo "FAIL: python3 jsonschema is missing (Debian: python3-jsonschema; ci/setup-deps.sh installs it)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 "$src/tests/report/make_reports.py" "$src" "$tmp/fleet" --count 150 --seed 11
python3 - "$src" "$tmp/fleet" <<'PY'
import copy, json, os, sys
import jsonschema

src, fleet = sys.argv[1], sys.argv[2]
schema = json.load(open(os.path.join(src, "docs", "report.schema.json")))
jsonschema.Draft202012Validator.check_schema(schema)
validator = jsonschema.Draft202012Validator(schema)

def reports_under(root):
    for d, _, files in os.walk(root):
        for f in sorted(files):
            if not f.endswith(".json"):
                continue
            path = os.path.join(d, f)
            try:
                j = json.load(open(path, encoding="utf-8"))
            except ValueError:
                continue
            if isinstance(j, dict) and {"schema", "result", "checks"} <= j.keys():
                yield path, j

failed = 0
def validate(path, j):
    global failed
    errors = sorted(validator.iter_errors(j), key=lambda e: list(e.path))
    for e in errors[:3]:
        print("FAIL: %s: %s: %s" % (path, "/".join(map(str, e.path)) or "(top)", e.message), file=sys.stderr)
    failed += bool(errors)

in_tests = list(reports_under(os.path.join(src, "tests")))
golden = [p for p, _ in in_tests if "/tests/report/golden/" in p]
assert len(golden) >= 7, "expected the golden reports under tests/report/golden, found %d" % len(golden)
for path, j in in_tests:
    validate(path, j)
generated = list(reports_under(fleet))
assert len(generated) >= 150, len(generated)
for path, j in generated:
    validate(path, j)

# The schema is not vacuous: each of these breaks the contract.
base = json.load(open(os.path.join(src, "tests", "report", "golden", "hgx-pfc-link.json")))
def broken(change):
    j = copy.deepcopy(base)
    change(j)
    return j
cases = {
    "no checks": broken(lambda j: j.pop("checks")),
    "no node": broken(lambda j: j.pop("node")),
    "schema 2": broken(lambda j: j.update(schema=2)),
    "result ok": broken(lambda j: j.update(result="ok")),
    "status bogus": broken(lambda j: j["checks"][0].update(status="bogus")),
    "check without observed": broken(lambda j: j["checks"][0].pop("observed")),
    "phase ms as text": broken(lambda j: j["phases"][0].update(ms="12")),
    "started_at not RFC 3339": broken(lambda j: j.update(started_at="yesterday")),
    "short PCI address": broken(lambda j: j["inventory"]["gpus"][0].update(pci="1b:00.0")),
    "affinity unknown": broken(lambda j: j["plan"]["rails"][0].update(affinity="FAR")),
    "drivers not a list": broken(lambda j: j["host"].update(drivers="doca")),
}
for name, j in cases.items():
    if validator.is_valid(j):
        print("FAIL: the schema accepts a report with %s" % name, file=sys.stderr)
        failed += 1
# Additive fields are allowed everywhere.
assert validator.is_valid(broken(lambda j: (j.update(future={"x": 1}), j["checks"][0].update(new=True))))
print("schema: %d reports in tests/ (%d golden), %d generated; %d contract breaks refused"
      % (len(in_tests), len(golden), len(generated), len(cases)))
sys.exit(1 if failed else 0)
PY
