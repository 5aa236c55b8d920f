# cc build --print module.api.image.base
# content hash sha256:e08285479ccc4aca665f08e9e25c7ebeeda006acb1203b67a4421b6f651a2717
ARG CC_PLATFORM=linux/amd64

FROM --platform=$CC_PLATFORM python:3.12-slim
RUN pip install --no-cache-dir requests==2.32.3
