# fairbench build and test entry points.
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
COMMIT  ?= $(shell git rev-parse --short HEAD 2>/dev/null)
LDFLAGS := -s -w -X main.version=$(VERSION) -X main.commit=$(COMMIT)
GOBUILD := CGO_ENABLED=0 go build -trimpath -ldflags "$(LDFLAGS)"

# Releases and the container image (see README.md, "Releases and containers").
DIST      ?= dist
ARCHES    ?= amd64 arm64
IMAGE     ?= ghcr.io/fairbench/fairbench
PLATFORMS ?= linux/amd64,linux/arm64
# IMAGE_OUTPUT: --push to push to $(IMAGE), or --load with a single PLATFORMS entry.
IMAGE_OUTPUT ?=
# Archive timestamps come from the last commit, so the same commit gives the same archives.
SOURCE_DATE_EPOCH ?= $(shell git log -1 --format=%ct 2>/dev/null || echo 0)
RELEASE_FILES := README.md $(wildcard LICENSE*) docs plans prices \
	deploy/kubernetes/README.md $(wildcard deploy/kubernetes/*.yaml)

.PHONY: build build-all test unit bench clean release image

## build: static binary for this machine in bin/fairbench
build:
	$(GOBUILD) -o bin/fairbench ./cmd/fairbench

## build-all: static binaries for linux/amd64 and linux/arm64 in bin/
build-all:
	GOOS=linux GOARCH=amd64 $(GOBUILD) -o bin/fairbench-linux-amd64 ./cmd/fairbench
	GOOS=linux GOARCH=arm64 $(GOBUILD) -o bin/fairbench-linux-arm64 ./cmd/fairbench

## release: versioned linux/amd64 and linux/arm64 archives and SHA256SUMS in $(DIST)/ (GNU cp, tar, sha256sum)
##   make release VERSION=v1.2.3 [DIST=dist]
release:
	@case "$(VERSION)" in ""|*/*|*" "*) echo "VERSION=$(VERSION) cannot name an archive: use e.g. VERSION=v1.2.3" >&2; exit 2;; esac
	mkdir -p $(DIST)
	rm -f $(DIST)/SHA256SUMS $(DIST)/fairbench-$(VERSION)-linux-*.tar.gz
	set -e; for arch in $(ARCHES); do \
		name=fairbench-$(VERSION)-linux-$$arch; stage=$(DIST)/$$name; \
		rm -rf $$stage; mkdir -p $$stage; \
		GOOS=linux GOARCH=$$arch $(GOBUILD) -o $$stage/fairbench ./cmd/fairbench; \
		cp -R --parents $(RELEASE_FILES) $$stage/; \
		tar -C $(DIST) --sort=name --owner=0 --group=0 --numeric-owner --mode=a+rX,go-w --mtime=@$(SOURCE_DATE_EPOCH) \
			-cf - $$name | gzip -n -9 > $(DIST)/$$name.tar.gz; \
		rm -rf $$stage; \
	done
	cd $(DIST) && sha256sum fairbench-$(VERSION)-linux-*.tar.gz > SHA256SUMS
	@cat $(DIST)/SHA256SUMS

## image: the multi-arch container image $(IMAGE):$(VERSION) (docker buildx; see Dockerfile)
##   make image IMAGE=registry.example.com/you/fairbench IMAGE_OUTPUT=--push
image:
	docker buildx build --platform $(PLATFORMS) \
		--build-arg VERSION=$(VERSION) --build-arg COMMIT=$(COMMIT) \
		--build-arg SOURCE_DATE_EPOCH=$(SOURCE_DATE_EPOCH) \
		-t $(IMAGE):$(VERSION) -t $(IMAGE):latest $(IMAGE_OUTPUT) -f Dockerfile .

## test: the whole suite against real MariaDB and PostgreSQL (starts/installs them)
test:
	scripts/test.sh

## unit: the tests that need no database server, container tool or browser (go test -short; the rest skip, saying what they need)
# The longest packages are named first: go test starts packages in the order
# given, and the cli package (about half the lane, mostly waiting) started
# only after the packages listed before it in ./..., with the suite and
# runner packages left to run after it. Four packages at a time (-p 4, not
# one per CPU): their tests wait on timers more than they compute, and the
# lane is then bound by CPU, not by waiting (2 CPUs: 58 s -> 44 s).
unit:
	go test -p 4 -short -count=1 ./internal/cli ./internal/run/suite ./internal/run/runner ./...

## bench: fairbench vs sysbench on the local MariaDB (not a test: prints figures)
bench: build
	bench/vs-sysbench.sh

clean:
	rm -rf bin fairbench-data $(DIST)

# The same image without a container engine (cmd/ociimage; see README.md, "Releases and containers").
.PHONY: image-oci

## image-oci: the multi-arch image as an oci-archive, $(DIST)/fairbench-$(VERSION)-oci.tar, named $(IMAGE):$(VERSION),
##   from the binaries `make release` builds, without Docker (push: skopeo copy --all --preserve-digests oci-archive:FILE docker://REF)
##   make image-oci VERSION=v1.2.3 [DIST=dist] [IMAGE=registry.example.com/you/fairbench]
image-oci:
	@case "$(VERSION)" in ""|*/*|*" "*) echo "VERSION=$(VERSION) cannot name an archive: use e.g. VERSION=v1.2.3" >&2; exit 2;; esac
	rm -rf $(DIST)/fairbench-$(VERSION)-oci-bin
	mkdir -p $(DIST)/fairbench-$(VERSION)-oci-bin
	set -e; for arch in $(ARCHES); do \
		GOOS=linux GOARCH=$$arch $(GOBUILD) -o $(DIST)/fairbench-$(VERSION)-oci-bin/fairbench-linux-$$arch ./cmd/fairbench; \
	done
	SOURCE_DATE_EPOCH=$(SOURCE_DATE_EPOCH) go run ./cmd/ociimage --version $(VERSION) --revision "$(COMMIT)" \
		--tag $(IMAGE):$(VERSION) --out $(DIST)/fairbench-$(VERSION)-oci.tar \
		$(foreach arch,$(ARCHES),--binary linux/$(arch)=$(DIST)/fairbench-$(VERSION)-oci-bin/fairbench-linux-$(arch))
	rm -rf $(DIST)/fairbench-$(VERSION)-oci-bin
