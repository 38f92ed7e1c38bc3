# syntax=docker/dockerfile:1
# fairbench container image: one static binary on an empty base, for linux/amd64 and linux/arm64.
#
#   docker buildx build --platform linux/amd64,linux/arm64 \
#       --build-arg VERSION=$(git describe --tags --always) --build-arg COMMIT=$(git rev-parse --short HEAD) \
#       -t ghcr.io/fairbench/fairbench:TAG --push .
#
# or `make image` (see README.md, "Releases and containers"). The builder runs on the build
# machine's own platform and cross-compiles (CGO_ENABLED=0), so no emulation is needed.

ARG GO_VERSION=1.26

FROM --platform=$BUILDPLATFORM golang:${GO_VERSION} AS build
ARG TARGETOS
ARG TARGETARCH
ARG VERSION=dev
ARG COMMIT=
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 GOOS=${TARGETOS} GOARCH=${TARGETARCH} \
    go build -trimpath -buildvcs=false \
      -ldflags "-s -w -X main.version=${VERSION} -X main.commit=${COMMIT}" \
      -o /out/fairbench ./cmd/fairbench
# Directories the empty base lacks: /tmp for temporary files, /work (owned by the
# runtime user) as the working directory for results and the embedded SQLite database.
RUN mkdir -p /out/tmp /out/work && chmod 1777 /out/tmp && chown 65532:65532 /out/work

FROM scratch
ARG VERSION=dev
ARG COMMIT=
# The labels `make image-oci` gives its image too (internal/release/ociimage).
LABEL org.opencontainers.image.title="fairbench" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${COMMIT}" \
      org.opencontainers.image.source="https://github.com/fairbench/fairbench"
# CA certificates for TLS to databases (--mysql-ssl=verify-full, --pgsql-ssl=verify-full).
COPY --from=build /etc/ssl/certs/ca-certificates.crt /etc/ssl/certs/ca-certificates.crt
COPY --from=build /out/tmp /tmp
COPY --from=build /out/work /work
COPY --from=build /out/fairbench /usr/local/bin/fairbench
# A numeric non-root user, so that Kubernetes' runAsNonRoot can verify it.
USER 65532:65532
WORKDIR /work
ENTRYPOINT ["/usr/local/bin/fairbench"]
CMD ["--help"]
