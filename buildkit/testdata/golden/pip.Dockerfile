# cc build --print image.pip
# content hash sha256:abababababababababababababababababababababababababababababababab
ARG CC_PLATFORM=linux/amd64

FROM --platform=$CC_PLATFORM python:3.12-slim
RUN pip install --no-cache-dir --index-url https://pypi.example/simple --extra-index-url https://extra.example/simple numpy==2.1 'requests[socks]>=2'
