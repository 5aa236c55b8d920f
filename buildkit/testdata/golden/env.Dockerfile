# cc build --print image.env
# content hash sha256:abababababababababababababababababababababababababababababababab
ARG CC_PLATFORM=linux/amd64

FROM --platform=$CC_PLATFORM busybox:1.36
ENV A="\$HOME" B="two words"
RUN env
