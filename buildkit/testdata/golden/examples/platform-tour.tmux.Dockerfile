# cc build --print image.tmux
# content hash sha256:01a5430a945c22b55a70b6a51001505c9adec2c1b61de9dfa3fb2f0de7ec082c
ARG CC_PLATFORM=linux/amd64

FROM --platform=$CC_PLATFORM python:3.14-slim-trixie AS sandbox
RUN apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends git ca-certificates openssh-client && rm -rf /var/lib/apt/lists/*
WORKDIR /workspace

# image.tmux (sha256:01a5430a945c22b55a70b6a51001505c9adec2c1b61de9dfa3fb2f0de7ec082c)
FROM sandbox
RUN apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends tmux && rm -rf /var/lib/apt/lists/*
