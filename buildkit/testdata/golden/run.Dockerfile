# cc build --print image.run
# content hash sha256:abababababababababababababababababababababababababababababababab

FROM --platform=linux/amd64 busybox:1.36
RUN echo one > /one && mkdir -p /data
