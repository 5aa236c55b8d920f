# cc build --print image.sandbox
# content hash sha256:27a02613b155af1c421356f494bd95a121ee3b3a58289adb599f68a515a327bb
ARG CC_PLATFORM=linux/amd64

FROM --platform=$CC_PLATFORM python:3.14-slim-trixie
RUN apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends git ca-certificates openssh-client && rm -rf /var/lib/apt/lists/*
WORKDIR /workspace
