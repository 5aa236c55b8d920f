# cc build --print image.workdir
# content hash sha256:abababababababababababababababababababababababababababababababab
ARG CC_PLATFORM=linux/amd64

FROM --platform=$CC_PLATFORM busybox:1.36
WORKDIR /srv/app
RUN pwd
