# cc build --print image.config
# content hash sha256:abababababababababababababababababababababababababababababababab
ARG CC_PLATFORM=linux/arm64

FROM --platform=$CC_PLATFORM busybox:1.36
ENTRYPOINT ["/bin/sh","-c"]
CMD ["echo hi"]
USER 1000:1000
