# stormlab — see README.md. Targets are thin wrappers over go and the CLI.
export TESTCONTAINERS_RYUK_DISABLED := true
export TESTCONTAINERS_HOST_OVERRIDE := 127.0.0.1

.PHONY: all setup build test experiment bench bench-hook images clean

all: build

setup:
	.ci/setup.sh

# The commit every manifest names (vcs_revision): taken from this checkout at build time, since builds with
# -buildvcs=false carry none in their build info, and git where the binary later runs may be another repository.
REPO_DIR := $(dir $(abspath $(lastword $(MAKEFILE_LIST))))
REVISION := $(shell git -C $(REPO_DIR) rev-parse HEAD 2>/dev/null)
MODIFIED := $(shell test -n "$$(git -C $(REPO_DIR) status --porcelain --untracked-files=no 2>/dev/null)" && echo true)
STAMP := -X github.com/stormlab/stormlab/experiments/lab.stampedRevision=$(REVISION) -X github.com/stormlab/stormlab/experiments/lab.stampedModified=$(MODIFIED)

build:
	go build ./...
	go build -ldflags '$(STAMP)' -o bin/stormlab ./cmd/stormlab

test: setup
	go vet ./...
	# -p 1: packages one after another, so cluster tests never wait on each other's cluster lock.
	go test -p 1 -count=1 -timeout 80m ./...

# Ends with the terminal table and the path of the HTML page (results/index.html).
# Existing results are never replaced silently: `make experiment FORCE=--force` replaces them.
FORCE ?=
experiment: setup build
	./bin/stormlab experiment default --out results $(FORCE)
	@./bin/stormlab report results >/dev/null && echo "report: results/index.html"

bench:
	go test -run '^$$' -bench . -benchmem ./schedulers/...

# The instrumentation's CPU cost per hook event and per tuple of the Throughput chain (Java, thread CPU
# time; topologies/storm/src/test/java/org/stormlab/instrument/HookCost.java). HOOK_JVM=-XX:TieredStopAtLevel=1
# measures it as the quick scale's C1-only workers run it.
HOOK_JVM ?=
bench-hook:
	cd topologies/storm && mvn -q test-compile dependency:build-classpath -Dmdep.outputFile=target/test.classpath -Dmdep.includeScope=test
	cd topologies/storm && java $(HOOK_JVM) -cp target/test-classes:target/classes:$$(cat target/test.classpath) org.stormlab.instrument.HookCost 2>&1 | grep -v '^SLF4J'

# Container images for the Storm cluster (built locally, skipped when up to date). infra/images.
images:
	go run ./infra/images/cmd/build-images

clean:
	rm -rf bin results

# Nightly CI: every cluster experiment at scale NIGHTLY_SCALE (quick: 3 runs per cell, so the gate has
# units to test; NIGHTLY_SCALE=full runs the papers' scale, hours; NIGHTLY_PROFILE, its old name, is
# still read when NIGHTLY_SCALE is not given) into
# results/nightly-YYYYMMDD/<experiment>/, then `stormlab compare` against results/nightly-baseline
# (if present; make a night the baseline with `ln -sfn nightly-YYYYMMDD results/nightly-baseline`)
# through .ci/nightly-gate.sh, the gate the scheduled CI workflow runs too (docs/nightly.md).
# Fails if an experiment fails, a metric regressed significantly (family-wise 95%) by more than
# NIGHTLY_THRESHOLD, or the night was measured on another testbed than the baseline. The comparison is
# kept in the night's folder as compare.md and compare.json (and verdicts.md: which claims got the
# baseline's verdict again, not a failure when they did not), and the night's HTML page (changes
# first) as index.html.
NIGHTLY_EXPERIMENTS ?= smoke comm-cost kpart-cluster deadline recovery observer load-curve
NIGHTLY_PROFILE ?= quick
NIGHTLY_SCALE ?= $(NIGHTLY_PROFILE)
NIGHTLY_THRESHOLD ?= 0.05
NIGHTLY_DIR ?= results/nightly-$(shell date -u +%Y%m%d)
NIGHTLY_BASELINE ?= results/nightly-baseline
.PHONY: nightly
nightly: setup build
	@mkdir -p $(NIGHTLY_DIR); rc=0; \
	for e in $(NIGHTLY_EXPERIMENTS); do \
	  ./bin/stormlab experiment $$e --scale $(NIGHTLY_SCALE) --out $(NIGHTLY_DIR) $(FORCE) || { echo "nightly: $$e failed"; rc=1; }; \
	done; \
	if [ -d $(NIGHTLY_BASELINE) ]; then \
	  STORMLAB=./bin/stormlab .ci/nightly-gate.sh $(NIGHTLY_BASELINE) $(NIGHTLY_DIR) $(NIGHTLY_THRESHOLD) || rc=1; \
	else \
	  echo "nightly: no $(NIGHTLY_BASELINE) to compare with; to make this night the baseline:"; \
	  echo "  ln -sfn $(notdir $(NIGHTLY_DIR)) results/nightly-baseline"; \
	fi; \
	./bin/stormlab report $(NIGHTLY_DIR) >/dev/null && echo "report: $(NIGHTLY_DIR)/index.html" || rc=1; \
	exit $$rc
