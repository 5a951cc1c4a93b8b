# stormlab — see README.md. Targets are thin wrappers over go and the CLI.
export TESTCONTAINERS_RYUK_DISABLED := true
export TESTCONTAINERS_HOST_OVERRIDE := 127.0.0.1

.PHONY: all setup build test experiment bench images clean

all: build

setup:
	.ci/setup.sh

build:
	go build ./...
	go build -o bin/stormlab ./cmd/stormlab

test: setup
	go vet ./...
	go test -count=1 -timeout 60m ./...

experiment: setup build
	./bin/stormlab experiment default --out results

bench:
	go test -run '^$$' -bench . -benchmem ./schedulers/...

# Container images for the Storm cluster (built locally, skipped when up to date). infra/images.
images:
	go run ./infra/images/cmd/build-images

clean:
	rm -rf bin results
