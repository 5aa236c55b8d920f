# cc build --print image.apt
# content hash sha256:abababababababababababababababababababababababababababababababab
ARG CC_PLATFORM=linux/amd64

FROM --platform=$CC_PLATFORM debian:12-slim
RUN apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends curl git=1:2.39.5-0+deb12u1 && rm -rf /var/lib/apt/lists/*
