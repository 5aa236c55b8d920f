# cc build --print image.api
# content hash sha256:8a6e5d36a1fcda31b5b3eb641cb5bb0ffbf342acf22c1fdeb076903b9b527d21
ARG CC_PLATFORM=linux/amd64

FROM --platform=$CC_PLATFORM python:3.12-slim AS base
RUN apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends ca-certificates curl && rm -rf /var/lib/apt/lists/*
RUN --mount=type=bind,source=requirements.txt,target=/tmp/cc-requirements.txt pip install --no-cache-dir -r /tmp/cc-requirements.txt
COPY shared /srv/shared
ENV PYTHONDONTWRITEBYTECODE="1" PYTHONPATH="/srv"

# image.api (sha256:8a6e5d36a1fcda31b5b3eb641cb5bb0ffbf342acf22c1fdeb076903b9b527d21)
FROM base
RUN pip install --no-cache-dir orjson==3.10.7
COPY api /srv/api
WORKDIR /srv
EXPOSE 8080
CMD ["uvicorn","api.server:app","--host","0.0.0.0","--port","8080"]
