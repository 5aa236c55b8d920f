# cc build --print image.app
# content hash sha256:53e1873e1d2026a00ec7bfd5f20986938e94d9d856dde13c15bc57e919c09d5b

FROM --platform=linux/amd64 python:3.12-slim
RUN apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends git curl && rm -rf /var/lib/apt/lists/*
RUN pip install --no-cache-dir requests==2.32.3 openai==1.51.0
COPY src /app/src
WORKDIR /app
CMD ["python","-m","src.support"]
