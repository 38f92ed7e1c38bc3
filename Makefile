# fairbench build and test entry points.
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
COMMIT  ?= $(shell git rev-parse --short HEAD 2>/dev/null)
LDFLAGS := -s -w -X main.version=$(VERSION) -X main.commit=$(COMMIT)
GOBUILD := CGO_ENABLED=0 go build -trimpath -ldflags "$(LDFLAGS)"

.PHONY: build build-all test bench clean

## build: static binary for this machine in bin/fairbench
build:
	$(GOBUILD) -o bin/fairbench ./cmd/fairbench

## build-all: static binaries for linux/amd64 and linux/arm64 in bin/
build-all:
	GOOS=linux GOARCH=amd64 $(GOBUILD) -o bin/fairbench-linux-amd64 ./cmd/fairbench
	GOOS=linux GOARCH=arm64 $(GOBUILD) -o bin/fairbench-linux-arm64 ./cmd/fairbench

## test: the whole suite against real MariaDB and PostgreSQL (starts/installs them)
test:
	scripts/test.sh

## bench: fairbench vs sysbench on the local MariaDB (not a test: prints figures)
bench: build
	bench/vs-sysbench.sh

clean:
	rm -rf bin fairbench-data
