# cc build --print image.base
# content hash sha256:af9f7e6665b8413dd7e22ee09c050525475de3d1564ecceb726dbb8ffdd786ef
ARG CC_PLATFORM=linux/amd64

FROM --platform=$CC_PLATFORM python:3.12-slim
RUN apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends ca-certificates curl && rm -rf /var/lib/apt/lists/*
RUN --mount=type=bind,source=requirements.txt,target=/tmp/cc-requirements.txt pip install --no-cache-dir -r /tmp/cc-requirements.txt
COPY shared /srv/shared
ENV PYTHONDONTWRITEBYTECODE="1" PYTHONPATH="/srv"
