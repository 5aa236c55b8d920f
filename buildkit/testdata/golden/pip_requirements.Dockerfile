# cc build --print image.pip-requirements
# content hash sha256:abababababababababababababababababababababababababababababababab

FROM --platform=linux/amd64 python:3.12-slim
RUN --mount=type=bind,source=requirements.txt,target=/tmp/cc-requirements.txt pip install --no-cache-dir -r /tmp/cc-requirements.txt
