# cc build --print image.e1692d2aa30e
# content hash sha256:e1692d2aa30ecc8df11d525965ad6ed62db350e1a8608ca7d2398e339985e324
ARG CC_PLATFORM=linux/amd64

FROM --platform=$CC_PLATFORM python:3.13-slim
