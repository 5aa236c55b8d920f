# cc build --print image.workdir
# content hash sha256:abababababababababababababababababababababababababababababababab

FROM --platform=linux/amd64 busybox:1.36
WORKDIR /srv/app
RUN pwd
