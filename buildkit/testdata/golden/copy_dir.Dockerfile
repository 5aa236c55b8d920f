# cc build --print image.copy-dir
# content hash sha256:abababababababababababababababababababababababababababababababab

FROM --platform=linux/amd64 busybox:1.36
COPY src /app
