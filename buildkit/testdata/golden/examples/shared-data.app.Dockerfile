# cc build --print image.app
# content hash sha256:ae42cdf86f8604162f8520ac0523c7e7deb9b4ce66053a83a2ed585f9fc9849c
ARG CC_PLATFORM=linux/amd64

FROM --platform=$CC_PLATFORM python:3.12-slim
RUN pip install --no-cache-dir requests==2.32.3
COPY src /app/src
WORKDIR /app
