#!/usr/bin/env bash
# The fleet page as a browser shows it: `railyard report html` over the golden reports,
# rendered by headless Chromium. The DOM holds one table row and one rails picture per
# node with a group per rail; a screenshot is not blank and shows the NIC states' colours
# (link up: green, link down: red).
set -euo pipefail
railyard=$1 src=$3
chromium=/usr/bin/chromium
[[ -x $chromium ]] || { echo "FAIL: $chromium is missing (Debian: chromium; ci/setup-deps.sh installs it)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

mkdir "$tmp/fleet"
cp "$src"/tests/report/golden/*.json "$tmp/fleet/"
"$railyard" report html "$tmp/fleet" -o "$tmp/fleet.html" 2>"$tmp/err" || fail "report html: $(cat "$tmp/err")"

# browser ARGS...: headless Chromium as root, nothing fetched, a fresh profile each time.
browser() {
  local profile
  profile=$(mktemp -d "$tmp/profile.XXXXXX")
  timeout 120 "$chromium" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --user-data-dir="$profile" --hide-scrollbars "$@" 2>>"$tmp/chromium.log"
}

browser --dump-dom "file://$tmp/fleet.html" >"$tmp/dom.html" || fail "chromium --dump-dom: $(tail -5 "$tmp/chromium.log")"
python3 - "$tmp/dom.html" <<'PY' || fail "the rendered DOM"
import html.parser, sys

class Count(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.rows = {"pass": 0, "fail": 0}
        self.svgs = self.rails = self.gpus = self.pins = self.sections = 0
        self.states = {}
        self.gpu_states = {}
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        cls = a.get("class", "").split()
        if tag == "tr" and "node-row" in cls:
            self.rows["fail" if "fail" in cls else "pass"] += 1
        elif tag == "svg" and "rails" in cls:
            self.svgs += 1
        elif tag == "g" and "rail" in cls:
            self.rails += 1
            self.states[a.get("data-state")] = self.states.get(a.get("data-state"), 0) + 1
        elif tag == "rect" and "gpu" in cls:
            self.gpus += 1
            state = next((c[6:] for c in cls if c.startswith("state-")), "")
            self.gpu_states[state] = self.gpu_states.get(state, 0) + 1
        elif tag == "line" and "pin" in cls:
            self.pins += 1
        elif tag == "section" and "node" in cls:
            self.sections += 1

c = Count()
c.feed(open(sys.argv[1], encoding="utf-8").read())
print("dom: rows %s, sections %d, svgs %d, rails %d %s, GPUs %d, pins %d" % (c.rows, c.sections, c.svgs, c.rails, c.states, c.gpus, c.pins))
assert c.rows == {"pass": 2, "fail": 6}, c.rows
assert c.sections == 8 and c.svgs == 8, (c.sections, c.svgs)
assert c.rails == 8 + 8 + 4 + 4 + 2 + 3 + 4 + 8, c.rails
# A rail is coloured by its worst: red, a link down or a check failing (hgx-pfc-link's rails
# 5 and 7, gpu8-nic4-no-gid's 0 and 2, gpu-nic-sys-default-route's 0, hgx-gpu-health's 4: its
# GPUDirect write). lab-soft-roce's rails pass: the lab's DCB stand-in answers what plain
# virtio cannot.
assert c.states.get("bad") == 6 and c.states.get("warn") is None, c.states
assert c.gpus == 8 + 8 + 4 + 8 + 2 + 8, c.gpus
assert c.pins == c.gpus, c.pins
# A GPU is coloured by its own checks and its rail's GPUDirect write: gpu4-downtrained-nvmeof's
# GPU 1 (its PCIe link), hgx-pfc-link's GPU on rail 7 (its link down) and hgx-gpu-health's
# GPUs 2 (ECC), 4 (GPUDirect) and 5 (an NVLink down) are red.
assert c.gpu_states.get("bad") == 5 and c.gpu_states.get("warn") is None, c.gpu_states
PY

# A page of two nodes, so that the picture of the one with a rail down is in the window.
mkdir "$tmp/two"
cp "$src"/tests/report/golden/{hgx-pfc-link,lab-soft-roce}.json "$tmp/two/"
"$railyard" report html "$tmp/two" -o "$tmp/two.html" 2>"$tmp/err" || fail "report html: $(cat "$tmp/err")"
browser --screenshot="$tmp/shot.png" --window-size=1280,4000 "file://$tmp/two.html" >/dev/null ||
  fail "chromium --screenshot: $(tail -5 "$tmp/chromium.log")"
[[ -s $tmp/shot.png ]] || fail "no screenshot written"
python3 - "$tmp/shot.png" <<'PY' || fail "the screenshot"
import struct, sys, zlib

data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
pos, idat, ihdr = 8, b"", None
while pos < len(data):
    n, kind = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    if kind == b"IHDR":
        ihdr = struct.unpack(">IIBBBBB", body)
    elif kind == b"IDAT":
        idat += body
    pos += 12 + n
width, height, depth, colour_type, _, _, interlace = ihdr
assert depth == 8 and colour_type in (2, 6) and interlace == 0, ihdr
bpp = 3 if colour_type == 2 else 4
raw = zlib.decompress(idat)
stride = width * bpp
pixels, prev, off = {}, bytearray(stride), 0
for y in range(height):
    f = raw[off]
    line = bytearray(raw[off + 1:off + 1 + stride])
    off += 1 + stride
    for i in range(stride):  # undo the PNG row filter
        a = line[i - bpp] if i >= bpp else 0
        b = prev[i]
        c = prev[i - bpp] if i >= bpp else 0
        if f == 1: line[i] = (line[i] + a) & 255
        elif f == 2: line[i] = (line[i] + b) & 255
        elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    prev = line
    for x in range(0, stride, bpp):
        px = bytes(line[x:x + 3])
        pixels[px] = pixels.get(px, 0) + 1
total = width * height
white = pixels.get(b"\xff\xff\xff", 0)
up = pixels.get(bytes.fromhex("dff0d8"), 0)     # a rail NIC with its link up and every check verified
down = pixels.get(bytes.fromhex("f8d7da"), 0)   # a rail NIC with its link down or a check failing
amber = pixels.get(bytes.fromhex("fff3cd"), 0)  # a rail NIC whose checks the driver cannot run
print("screenshot %dx%d: %d colours, %.1f%% white, %d verified, %d failing and %d unverified NIC pixels"
      % (width, height, len(pixels), 100.0 * white / total, up, down, amber))
assert width == 1280 and height == 4000, (width, height)
assert len(pixels) > 50, "hardly any colours: a blank page?"
assert white < 0.97 * total, "almost all white"
assert up > 2000, "no NIC drawn with its link up"
assert down > 500, "the NIC with its link down is not drawn red"
assert amber > 500, "lab-soft-roce's unverified rails are not drawn amber"
PY
echo "html_chromium: ok"
