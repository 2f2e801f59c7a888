# syntax=docker/dockerfile:1
# quizhost in a container: a static binary on distroless, run as a non-root
# user, the database on the /data volume. See README.md, "Operations".
#
#   docker build -t quizhost .
#   docker run -d --name quizhost --env-file .env -v quizhost-data:/data quizhost

FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
# Static (no cgo), reproducible paths; the module's own time zone database
# is embedded too, so guild time zones work whatever the base image has.
RUN CGO_ENABLED=0 go build -trimpath -tags timetzdata -ldflags="-s -w" -o /out/quizhost . \
 && mkdir -p /out/data/backups

# distroless/static: CA certificates (TLS to Discord), /etc/passwd with
# the "nonroot" user (65532), no shell.
FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/quizhost /usr/local/bin/quizhost
COPY --from=build --chown=65532:65532 /out/data /data
# The database on the volume; automatic backups next to it, in /data/backups.
ENV QUIZHOST_DB=/data/quizhost.db
WORKDIR /data
VOLUME /data
USER nonroot:nonroot
# quizhost stops cleanly on SIGTERM within 5 s (docker stop waits 10 s).
STOPSIGNAL SIGTERM
ENTRYPOINT ["/usr/local/bin/quizhost"]
