# cc build --print image.dockerfile
# content hash sha256:abababababababababababababababababababababababababababababababab
ARG CC_PLATFORM=linux/amd64

FROM --platform=$CC_PLATFORM busybox:1.36
ENV GREETING=hello
RUN echo $GREETING > /greeting
WORKDIR /srv
LABEL org.example.team=search
EXPOSE 8080 53/udp
USER nobody
HEALTHCHECK --interval=5s CMD wget -q -O- http://localhost:8080/
STOPSIGNAL SIGTERM
VOLUME /data
