# cc build --print image.pip-requirements
# content hash sha256:abababababababababababababababababababababababababababababababab
ARG CC_PLATFORM=linux/amd64

FROM --platform=$CC_PLATFORM python:3.12-slim
RUN --mount=type=bind,source=requirements.txt,target=/tmp/cc-requirements.txt pip install --no-cache-dir -r /tmp/cc-requirements.txt
