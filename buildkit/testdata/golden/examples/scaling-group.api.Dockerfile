# cc build --print image.api
# content hash sha256:8c5575039760adcb664e315dc85cf47eef6ee9c5238e204bc28ca311ca85f1fc
ARG CC_PLATFORM=linux/amd64

FROM --platform=$CC_PLATFORM python:3.12-slim
RUN pip install --no-cache-dir uvicorn==0.30.6 fastapi==0.115.0
