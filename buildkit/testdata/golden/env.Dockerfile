# cc build --print image.env
# content hash sha256:abababababababababababababababababababababababababababababababab

FROM --platform=linux/amd64 busybox:1.36
ENV A="\$HOME" B="two words"
RUN env
