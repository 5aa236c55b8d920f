# cc build --print image.copy-file-mode
# content hash sha256:abababababababababababababababababababababababababababababababab
ARG CC_PLATFORM=linux/amd64

FROM --platform=$CC_PLATFORM busybox:1.36
COPY --chmod=0755 run.sh /usr/local/bin/run
