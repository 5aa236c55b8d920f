# cc build --print image.config
# content hash sha256:abababababababababababababababababababababababababababababababab

FROM --platform=linux/arm64 busybox:1.36
ENTRYPOINT ["/bin/sh","-c"]
CMD ["echo hi"]
USER 1000:1000
