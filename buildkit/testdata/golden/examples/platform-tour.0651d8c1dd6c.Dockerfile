# cc build --print image.0651d8c1dd6c
# content hash sha256:0651d8c1dd6cfc07fb02e4e943a67e21b3311084a2661c86a776a82991f1a553
ARG CC_PLATFORM=linux/amd64

FROM --platform=$CC_PLATFORM ubuntu:latest
