# cc build --print image.pip
# content hash sha256:abababababababababababababababababababababababababababababababab

FROM --platform=linux/amd64 python:3.12-slim
RUN pip install --no-cache-dir --index-url https://pypi.example/simple --extra-index-url https://extra.example/simple numpy==2.1 'requests[socks]>=2'
