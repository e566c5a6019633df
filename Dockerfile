# The codeloc image: one image for the three roles.
#   - codeloc-sidecar (the entrypoint): the Config Management Plugin server
#     beside Argo CD's repo-server, rendering in-process;
#   - codeloc generate: the command Argo CD's stock argocd-cmp-server runs
#     (plugin.yaml is at /home/argocd/cmp-server/config/plugin.yaml);
#   - codeloc-jobs preflight / migrate: the PreSync Jobs codeloc renders.
#
# This file only assembles: sidecar/image/build.sh builds the static
# binaries and stages the root filesystem (users, CA bundle, plugin.yaml,
# /tmp) as _out/image/rootfs.tar, the only file sent as build context. No
# base image, no shell, nothing to pull. From the repo root:
#
#   bash sidecar/image/build.sh
#   docker build --build-arg VERSION="$(cat _out/image/version)" -t codeloc .
#   # or: buildah bud --build-arg VERSION="$(cat _out/image/version)" -t codeloc .
#
# ADD (not COPY) unpacks the tar with the owners and modes the script set:
# root everywhere but the socket folder (999), /tmp 1777. CI builds this
# file with buildah and checks user, entrypoint and the layer's listing:
# bash .ci/image.sh.
FROM scratch

ARG VERSION=dev
LABEL org.opencontainers.image.title="codeloc" \
      org.opencontainers.image.description="Argo CD Config Management Plugin for atlas code-locations: codeloc-sidecar, codeloc, codeloc-jobs" \
      org.opencontainers.image.source="https://github.com/codeloc/codeloc" \
      org.opencontainers.image.version="${VERSION}"

ADD _out/image/rootfs.tar /

# 999 is Argo CD's argocd user: the plugins socket folder is shared with the
# repo-server container.
USER 999:999
ENV PATH=/usr/local/bin \
    HOME=/tmp \
    TMPDIR=/tmp \
    ARGOCD_PLUGINSOCKFILEPATH=/home/argocd/cmp-server/plugins
WORKDIR /tmp
# Metrics and /healthz when started with --metrics-addr :9095.
EXPOSE 9095
# The install (sidecar/install/repo-server-sidecar.yaml) sets command
# codeloc-sidecar and its --contract and --metrics-addr.
ENTRYPOINT ["/usr/local/bin/codeloc-sidecar"]
