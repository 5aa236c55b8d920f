# cc build --print image.apt
# content hash sha256:abababababababababababababababababababababababababababababababab

FROM --platform=linux/amd64 debian:12-slim
RUN apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends curl git=1:2.39.5-0+deb12u1 && rm -rf /var/lib/apt/lists/*
