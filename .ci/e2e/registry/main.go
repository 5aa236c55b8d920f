// Command registry serves an in-memory OCI registry (go-containerregistry's
// pkg/registry) on 127.0.0.1 for the end-to-end tests. It listens on a free
// port and writes "127.0.0.1:PORT" to the file named by -addr-file, so
// .ci/test can point buildkitd's docker.io mirror at it before buildkitd
// starts.
package main

import (
	"flag"
	"io"
	"log"
	"net"
	"net/http"
	"os"

	"github.com/google/go-containerregistry/pkg/registry"
)

func main() {
	addrFile := flag.String("addr-file", "", "write the listen address to this file")
	listen := flag.String("listen", "127.0.0.1:0", "address to listen on")
	flag.Parse()
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		log.Fatal(err)
	}
	if *addrFile != "" {
		tmp := *addrFile + ".tmp"
		if err := os.WriteFile(tmp, []byte(ln.Addr().String()), 0o644); err != nil {
			log.Fatal(err)
		}
		if err := os.Rename(tmp, *addrFile); err != nil {
			log.Fatal(err)
		}
	}
	log.Fatal(http.Serve(ln, registry.New(registry.Logger(log.New(io.Discard, "", 0)))))
}
