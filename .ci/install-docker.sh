#!/usr/bin/env bash
# Makes a Docker engine available for stormlab's cluster tests: installs Debian's docker.io and the
# image-building tools (debootstrap, Maven, a JDK) when missing, and starts dockerd when `docker info`
# does not answer, waiting until it does. Idempotent; needs root (CI runs as root).
set -euo pipefail

need=()
command -v docker >/dev/null 2>&1 || need+=(docker.io)
command -v dockerd >/dev/null 2>&1 || need+=(docker.io)
command -v debootstrap >/dev/null 2>&1 || need+=(debootstrap)
command -v mvn >/dev/null 2>&1 || need+=(maven)
command -v javac >/dev/null 2>&1 || need+=(openjdk-17-jdk-headless)
command -v tar >/dev/null 2>&1 || need+=(tar)
command -v iptables >/dev/null 2>&1 || need+=(iptables)
if [ ${#need[@]} -gt 0 ]; then
  echo "install-docker: installing ${need[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends $(printf '%s\n' "${need[@]}" | sort -u) ca-certificates >/dev/null
fi

if docker info >/dev/null 2>&1; then
  echo "install-docker: Docker engine already running"
  exit 0
fi

echo "install-docker: starting dockerd"
mkdir -p /var/log
nohup dockerd >/var/log/stormlab-dockerd.log 2>&1 &
for i in $(seq 1 60); do
  if docker info >/dev/null 2>&1; then
    echo "install-docker: Docker engine up after ${i} s"
    exit 0
  fi
  sleep 1
done
echo "install-docker: dockerd did not answer within 60 s; last log lines:" >&2
tail -n 30 /var/log/stormlab-dockerd.log >&2 || true
exit 1
