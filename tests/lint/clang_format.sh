#!/usr/bin/env bash
# Every .cc and .h of the project follows .clang-format. Prints the files that do not, with
# clang-format's first complaints, and the command that fixes them.
# Usage: tests/lint/clang_format.sh SOURCE_ROOT
set -euo pipefail
root=${1:?usage: clang_format.sh SOURCE_ROOT}
cd "$root"
if ! command -v clang-format >/dev/null; then
  echo "clang-format is not installed (Debian package clang-format): skipped" >&2
  exit 77
fi
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  mapfile -t files < <(git ls-files '*.cc' '*.h')
else
  mapfile -t files < <(find core builder firstboot tests -name '*.cc' -o -name '*.h' | sort)
fi
present=()
for f in "${files[@]}"; do [[ -f $f ]] && present+=("$f"); done
files=("${present[@]}")
# In batches, two at a time: one clang-format per file cost most of a minute. Each file that
# does not follow the style is named in clang-format's "code should be clang-formatted" errors.
mapfile -t bad < <(printf '%s\0' "${files[@]}" | xargs -0 -n 64 -P "$(nproc)" clang-format --dry-run --Werror 2>&1 |
  sed -n 's/^\(.*\):[0-9]*:[0-9]*: error: code should be clang-formatted.*/\1/p' | sort -u)
if ((${#bad[@]})); then
  for f in "${bad[@]}"; do clang-format --dry-run "$f" 2>&1 | head -6; done
  echo "${#bad[@]} of ${#files[@]} files do not follow .clang-format; fix: clang-format -i ${bad[*]}" >&2
  exit 1
fi
echo "clang-format: ${#files[@]} files follow .clang-format ($(clang-format --version))"
