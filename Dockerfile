# syntax=docker/dockerfile:1
#
# The codeloc image: one image for the three roles.
#   - codeloc-sidecar (the entrypoint): the Config Management Plugin server
#     beside Argo CD's repo-server, rendering in-process;
#   - codeloc generate: the command Argo CD's stock argocd-cmp-server runs
#     (plugin.yaml is at /home/argocd/cmp-server/config/plugin.yaml);
#   - codeloc-jobs preflight / migrate: the PreSync Jobs codeloc renders
#     (codeloc built with -tags jobs: client-go and pgx stay out of the
#     per-render codeloc, which hands those commands over to it).
#
# Build (from the repo root):
#
#   docker build --build-arg VERSION=0.1.0 -t registry:80/codeloc:0.1.0 .
#
# Static binaries (CGO_ENABLED=0) on distroless static, user 999 (Argo CD's
# argocd user, which shares the plugin socket folder with the repo-server).

ARG GO_VERSION=1.26
ARG BASE=gcr.io/distroless/static-debian12:nonroot

FROM golang:${GO_VERSION} AS build
ENV CGO_ENABLED=0 GOFLAGS=-buildvcs=false GOTOOLCHAIN=local
WORKDIR /src
# Modules first: this layer is reused until go.mod or go.sum change.
COPY go.mod go.sum ./
RUN --mount=type=cache,target=/go/pkg/mod go mod download -x
COPY . .
ARG VERSION=dev
RUN --mount=type=cache,target=/go/pkg/mod \
    --mount=type=cache,target=/root/.cache/go-build \
    set -eu; \
    for cmd in codeloc codeloc-sidecar; do \
      go build -trimpath -ldflags "-s -w -X main.version=${VERSION}" -o "/out/usr/local/bin/$cmd" "./cmd/$cmd"; \
    done; \
    go build -tags jobs -trimpath -ldflags "-s -w -X main.version=${VERSION}" -o /out/usr/local/bin/codeloc-jobs ./cmd/codeloc; \
    install -D -m 0644 plugin.yaml /out/home/argocd/cmp-server/config/plugin.yaml; \
    mkdir -p /out/home/argocd/cmp-server/plugins; \
    /out/usr/local/bin/codeloc version; \
    /out/usr/local/bin/codeloc-jobs version; \
    /out/usr/local/bin/codeloc-sidecar --version

FROM ${BASE}
COPY --from=build /out/usr/local/bin/ /usr/local/bin/
COPY --from=build --chown=999:999 /out/home/argocd/ /home/argocd/
USER 999:999
ENV HOME=/tmp \
    TMPDIR=/tmp \
    ARGOCD_PLUGINSOCKFILEPATH=/home/argocd/cmp-server/plugins
WORKDIR /tmp
# Metrics and /healthz when started with --metrics-addr :9095.
EXPOSE 9095
ENTRYPOINT ["/usr/local/bin/codeloc-sidecar"]
