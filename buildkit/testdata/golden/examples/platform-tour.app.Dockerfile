# cc build --print image.app
# content hash sha256:dc959c2a851aa74a9a407eabdce3e0c1b985f72b097eb07b095547a227bb89ee
ARG CC_PLATFORM=linux/amd64

FROM --platform=$CC_PLATFORM python:3.12-slim
RUN pip install --no-cache-dir pydantic==2.9.2 requests==2.32.3
COPY --chmod=0644 src /app/src
RUN python -m compileall -q /app/src
WORKDIR /app
