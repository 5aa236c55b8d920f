# cc build --print image.app
# content hash sha256:243fd4ffa810aa84be4fbe3849fcd4527fd774dd25c640b628190a771e4249cd
ARG CC_PLATFORM=linux/amd64

FROM --platform=$CC_PLATFORM python:3.12-slim
RUN pip install --no-cache-dir requests==2.32.3
COPY src /app/src
WORKDIR /app
