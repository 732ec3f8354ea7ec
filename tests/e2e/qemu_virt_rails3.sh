#!/usr/bin/env bash
# Fewer rail NICs than the recipe expects (3 of 4): the hardware cannot satisfy the recipe,
# so the plan has a problem, nothing is applied, and the node does not join.
source "$(dirname "$0")/lib/lab.bash"
lab_init "$@"
lab_image "$SRC/recipes/qemu-virt.toml"
lab_collector
lab_boot rails3 --rails 3
lab_expect_rc 1

lab_assert <<'PY'
expect(report["result"] == "fail", "result fail")
expect(any("wants 4 rails; 3" in p for p in report["problems"]), "the problem names the rail count: %s" % report["problems"])
expect(report["checks"] == [], "nothing verified: %s" % [c["name"] for c in report["checks"]])
expect(report.get("changes", []) == [], "nothing applied")
expect(status["joined"] is False and status["ready_unit"] != "active", "not joined: %s" % status)
PY
