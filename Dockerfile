# syntax=docker/dockerfile:1
# webhooklint's container image: one static binary on distroless/static,
# running as the image's non-root user, linting the repository mounted at
# /src:
#
#   docker run --rm -v "$PWD:/src:ro" ghcr.io/webhooklint/webhooklint:v0.1.0 deploy/
#
# The binary is built by hack/release, as the release archives are (static,
# -trimpath, stripped, version stamped), for the platform being built
# (docker buildx build --platform linux/amd64,linux/arm64 --build-arg VERSION=v1.2.3 .).

ARG GO_VERSION=1.26

FROM --platform=$BUILDPLATFORM golang:${GO_VERSION}-bookworm AS build
WORKDIR /build
# Modules first: this layer is reused while go.mod and go.sum stay the same.
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=devel
ARG TARGETOS
ARG TARGETARCH
RUN go run -tags devtools ./hack/release -version "${VERSION}" -targets "${TARGETOS}/${TARGETARCH}" -binaries-only -out /out \
 && cp "/out/bin/${TARGETOS}_${TARGETARCH}/webhooklint" /webhooklint

# distroless/static has no shell and no package manager, only CA
# certificates (for `webhooklint cluster`), tzdata and /etc/passwd with the
# nonroot user (65532), which deploy/deployment.yaml runs as.
FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /webhooklint /usr/local/bin/webhooklint
USER 65532:65532
WORKDIR /src
ENTRYPOINT ["webhooklint"]
