#!/usr/bin/env bash
# The nightly gate: compares a night's results folder with the baseline's, keeps the comparison in the
# night's folder and fails on a regression. `make nightly` and .github/workflows/nightly.yml both run this
# one script, so the gate CI runs is the gate a user runs (internal/ci tests it on doctored folders).
#
#   .ci/nightly-gate.sh BASELINE NIGHT [THRESHOLD]     (THRESHOLD: relative change, default 0.05)
#
# Writes NIGHT/compare.json (every row, for the HTML page), NIGHT/compare.md (the gate's table) and, when
# both folders hold claims.json, NIGHT/verdicts.md (which claims got the baseline's verdict again; a
# claim whose verdict changed does not fail the gate). $STORMLAB is the binary (default bin/stormlab).
# Exit status is the gate's, from `stormlab compare --fail-on-regression`:
#   0  no regression
#   1  a significant regression or change beyond THRESHOLD, or something the baseline has and NIGHT lacks
#   2  not judged: base and night were measured on different testbeds, or a folder is not a results folder
set -uo pipefail

if [ $# -lt 2 ] || [ $# -gt 3 ]; then
  echo "usage: $0 BASELINE NIGHT [THRESHOLD]" >&2
  exit 2
fi
base=$1 night=$2 threshold=${3:-0.05}
stormlab=${STORMLAB:-bin/stormlab}
for d in "$base" "$night"; do
  if [ ! -d "$d" ]; then
    echo "nightly gate: $d is not a folder: give the baseline's and the night's results folders" >&2
    exit 2
  fi
done

json_err=$(mktemp)
gate_err=$(mktemp)
trap 'rm -f "$json_err" "$gate_err"' EXIT
# Every row for the page. Its stderr: the testbeds' warnings (shown), the summary (compare.md repeats it).
if ! "$stormlab" compare "$base" "$night" --threshold "$threshold" --format json >"$night/compare.json" 2>"$json_err"; then
  cat "$json_err" >&2
  rm -f "$night/compare.json"
  exit 2
fi
grep '^warning:' "$json_err" >&2
"$stormlab" compare "$base" "$night" --threshold "$threshold" --fail-on-regression --format markdown >"$night/compare.md" 2>"$gate_err"
rc=$?
if [ -n "$(find "$base" -name claims.json -print -quit)" ] && [ -n "$(find "$night" -name claims.json -print -quit)" ]; then
  "$stormlab" compare --verdicts "$base" "$night" --format markdown >"$night/verdicts.md" ||
    echo "nightly gate: the verdicts could not be compared (above); the gate does not count them" >&2
fi
cat "$night/compare.md"
[ -f "$night/verdicts.md" ] && cat "$night/verdicts.md"
# The gate's own lines (a failure's list, a refusal) after the tables, where a reader of the log looks.
grep -v '^warning: ' "$gate_err" >&2 # the warnings were shown above
case $rc in
  0) echo "nightly gate: passed ($night against $base, threshold $threshold)" ;;
  1) echo "nightly gate: FAILED: a regression against $base (compare.md above)" >&2 ;;
  *) echo "nightly gate: not judged (exit $rc): see the error above" >&2 ;;
esac
exit $rc
