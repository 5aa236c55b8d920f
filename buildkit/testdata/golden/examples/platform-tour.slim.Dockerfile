# cc build --print image.slim
# content hash sha256:a0bcd8e244ef5ae86cdd05fd8fd505766110fc8f21fec063fe33cd6b068b1dad
ARG CC_PLATFORM=linux/amd64

FROM --platform=$CC_PLATFORM python:3.14-slim-trixie AS debian-slim

# image.slim (sha256:a0bcd8e244ef5ae86cdd05fd8fd505766110fc8f21fec063fe33cd6b068b1dad)
FROM debian-slim
RUN pip install --no-cache-dir requests
