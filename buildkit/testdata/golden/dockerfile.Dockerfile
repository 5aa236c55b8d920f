# cc build --print image.dockerfile
# content hash sha256:abababababababababababababababababababababababababababababababab

FROM --platform=linux/amd64 busybox:1.36
ENV GREETING=hello
RUN echo $GREETING > /greeting
WORKDIR /srv
LABEL org.example.team=search
EXPOSE 8080 53/udp
USER nobody
HEALTHCHECK --interval=5s CMD wget -q -O- http://localhost:8080/
STOPSIGNAL SIGTERM
VOLUME /data
