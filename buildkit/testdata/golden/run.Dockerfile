# cc build --print image.run
# content hash sha256:abababababababababababababababababababababababababababababababab
ARG CC_PLATFORM=linux/amd64

FROM --platform=$CC_PLATFORM busybox:1.36
RUN echo one > /one
RUN mkdir -p /data
