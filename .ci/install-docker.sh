#!/usr/bin/env bash
# placeholder until infra lands: start dockerd if no engine answers
set -euo pipefail
if ! docker info >/dev/null 2>&1; then
  (nohup dockerd >/tmp/dockerd.log 2>&1 &)
  for i in $(seq 1 60); do docker info >/dev/null 2>&1 && exit 0; sleep 1; done
  echo "dockerd did not start; see /tmp/dockerd.log" >&2; exit 1
fi
