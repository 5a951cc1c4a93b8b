#!/usr/bin/env bash
# Idempotent set-up of everything stormlab's tests and experiments need on a
# fresh Debian machine: Debian packages (METIS, the CBC MIP solver, debootstrap, Docker engine, pdflatex),
# a running Docker engine, and the Maven builds of the Java parts.
# Safe to run again: each step checks first.
set -euo pipefail
cd "$(dirname "$0")/.."

need_pkgs=()
# coinor-cbc: the exact scheduler's MIP solver. chromium: the HTML report test loads the page in headless Chromium (reports).
# The shellcheck package: internal/ci's actionlint test checks the workflows' run: scripts with it.
for p in libmetis-dev metis coinor-cbc debootstrap docker.io iproute2 chromium shellcheck; do
  dpkg -s "$p" >/dev/null 2>&1 || need_pkgs+=("$p")
done
if [ ${#need_pkgs[@]} -gt 0 ]; then
  echo "setup: installing ${need_pkgs[*]}"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need_pkgs[@]}" >/dev/null
fi

# pdflatex, bibtex, booktabs and graphicx: the tests compile every generated table and refs.bib (experiments,
# experiments/lab, reports). Without recommends: they would pull in hundreds of MB of fonts and docs.
tex_pkgs=()
for p in texlive-latex-base texlive-latex-recommended; do
  dpkg -s "$p" >/dev/null 2>&1 || tex_pkgs+=("$p")
done
if [ ${#tex_pkgs[@]} -gt 0 ]; then
  echo "setup: installing ${tex_pkgs[*]}"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${tex_pkgs[@]}" >/dev/null
fi

# Docker engine (starts dockerd when none answers).
.ci/install-docker.sh

# Java parts: the Nimbus-side bridge and the instrumented topologies.
for pom in infra/docker/bridge/pom.xml topologies/storm/pom.xml; do
  if [ -f "$pom" ]; then
    echo "setup: mvn package $(dirname "$pom")"
    mvn -q -B -DskipTests -f "$pom" package
  fi
done
