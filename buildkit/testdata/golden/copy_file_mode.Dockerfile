# cc build --print image.copy-file-mode
# content hash sha256:abababababababababababababababababababababababababababababababab

FROM --platform=linux/amd64 busybox:1.36
COPY --chmod=0755 run.sh /usr/local/bin/run
