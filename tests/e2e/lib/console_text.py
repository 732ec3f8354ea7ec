#!/usr/bin/env python3
"""Prints a serial console log as a terminal would have shown it.

iPXE draws a download's progress in place: "name... 26%" then backspaces, blanks and
backspaces again, then " ok" over it once the file is whole. Whether it draws any progress
depends on how long the download takes, so a check that greps the raw bytes for "name... ok"
passes on a fast host and fails on a slow one. Rendered, every download that finished reads
"name... ok" either way. Backspace moves left, carriage return goes to the line's start,
ANSI escape sequences and other control characters are dropped.

usage: console_text.py LOG
"""
import re
import sys

ESCAPE = re.compile(rb"\x1b(\[[0-9;?]*[ -/]*[@-~]|[@-Z\\-_])")


def render(data: bytes) -> str:
    lines = []
    for raw in ESCAPE.sub(b"", data).split(b"\n"):
        line, col = [], 0
        for byte in raw.decode("utf-8", "replace"):
            if byte == "\b":
                col = max(col - 1, 0)
            elif byte == "\r":
                col = 0
            elif byte == "\t" or byte >= " ":
                if col < len(line):
                    line[col] = byte
                else:
                    line.append(byte)
                col += 1
        lines.append("".join(line).rstrip())
    return "\n".join(lines)


def main() -> int:
    if len(sys.argv) != 2:
        print("usage: console_text.py LOG", file=sys.stderr)
        return 2
    try:
        with open(sys.argv[1], "rb") as log:
            data = log.read()
    except OSError as err:
        print(f"console_text.py: {sys.argv[1]}: {err.strerror}", file=sys.stderr)
        return 1
    sys.stdout.write(render(data) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
