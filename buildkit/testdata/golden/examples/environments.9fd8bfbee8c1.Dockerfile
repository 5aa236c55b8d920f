# cc build --print image.9fd8bfbee8c1
# content hash sha256:9fd8bfbee8c1415c56bac3a8f7ad94ec0855e601b121c8d96dc14c6bee18e634
ARG CC_PLATFORM=linux/amd64

FROM --platform=$CC_PLATFORM python:3.12-slim
