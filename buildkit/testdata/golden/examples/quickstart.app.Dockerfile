# cc build --print image.app
# content hash sha256:25379814bf85b3fb5390554fea73ef8ddcf9b869c208c4ca15909a5f26341382
ARG CC_PLATFORM=linux/amd64

FROM --platform=$CC_PLATFORM python:3.12-slim
RUN apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends git curl && rm -rf /var/lib/apt/lists/*
RUN pip install --no-cache-dir requests==2.32.3 openai==1.51.0
COPY src /app/src
ENV APP_HOME="/app" PYTHONUNBUFFERED="1"
WORKDIR /app
ENTRYPOINT ["python","-m"]
CMD ["src.support"]
