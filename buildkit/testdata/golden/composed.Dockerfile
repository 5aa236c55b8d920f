# cc build --print image.app
# content hash sha256:2222222222222222222222222222222222222222222222222222222222222222
ARG CC_PLATFORM=linux/amd64

FROM --platform=$CC_PLATFORM python:3.12-slim AS base
RUN pip install --no-cache-dir numpy==2.1
ENV BASE="1"
CMD ["python"]

# image.app (sha256:2222222222222222222222222222222222222222222222222222222222222222)
FROM base
COPY src/app.py /app/app.py
CMD ["python","/app/app.py"]
