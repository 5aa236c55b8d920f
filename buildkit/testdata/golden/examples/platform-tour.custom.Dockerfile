# cc build --print image.custom
# content hash sha256:7b8f03c292bda858f7e0ba675b5acf25d20ade64ea8154beee3ea99bd97c2c7b

# from_dockerfile docker/Dockerfile (build context: its directory)
FROM python:3.12-slim
RUN pip install --no-cache-dir requests==2.32.3
WORKDIR /srv
# end of docker/Dockerfile
