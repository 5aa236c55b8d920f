# cc build --print image.worker
# content hash sha256:68c8b7abcb0c8a85261a1fde9a5445d3bc0daa24496b0a372733a447e909ce9e
ARG CC_PLATFORM=linux/amd64

FROM --platform=$CC_PLATFORM python:3.12-slim AS base
RUN apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends ca-certificates curl && rm -rf /var/lib/apt/lists/*
RUN --mount=type=bind,source=requirements.txt,target=/tmp/cc-requirements.txt pip install --no-cache-dir -r /tmp/cc-requirements.txt
COPY shared /srv/shared
ENV PYTHONDONTWRITEBYTECODE="1" PYTHONPATH="/srv"

# image.worker (sha256:68c8b7abcb0c8a85261a1fde9a5445d3bc0daa24496b0a372733a447e909ce9e)
FROM base
RUN pip install --no-cache-dir celery==5.4.0
COPY worker /srv/worker
WORKDIR /srv
ENTRYPOINT ["celery","-A","worker.jobs"]
USER nobody
