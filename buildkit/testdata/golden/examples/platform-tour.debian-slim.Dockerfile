# cc build --print image.debian-slim
# content hash sha256:0f9e3fed2947ad2e0ab2f7189d2c46f1f199971122d6f15b5e055de7a9686d47
ARG CC_PLATFORM=linux/amd64

FROM --platform=$CC_PLATFORM python:3.14-slim-trixie
