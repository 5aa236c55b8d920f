package buildkit_test

import (
	"fmt"

	"cc.dev/cc/buildkit"
)

// A shared buildkitd is reached over tcp:// with TLS; the settings are
// checked before anything connects (issue 14: a shared BuildKit).
func ExampleTLS_Check() {
	t := buildkit.TLS{CA: "ca.pem", Cert: "client.pem"}
	fmt.Println(t.Check("unix:///run/buildkit/buildkitd.sock"))
	fmt.Println(t.Check("tcp://buildkit.example:1234"))
	b := buildkit.New("tcp://buildkit.example:1234", buildkit.WithTLS(buildkit.TLS{CA: "ca.pem", Cert: "client.pem", Key: "client-key.pem"}))
	defer b.Close()
	// Output:
	// TLS needs a tcp://HOST:PORT address of buildkitd, not "unix:///run/buildkit/buildkitd.sock"
	// a client certificate needs its key, and a key its certificate: give both or neither
}
