#!/usr/bin/env bash
# Regenerates the Go code of the cc.v1 API from cc/v1/cc.proto, and
# cc/v1/generated.sum, the digests that TestGeneratedUpToDate checks.
#
#   service/proto/generate.sh          # or: go generate ./service/...
#   service/proto/generate.sh OUTDIR   # write the Go code under OUTDIR instead
#
# Needs protoc (Debian: apt-get install -y protobuf-compiler). The Go plugins
# are go.mod tool dependencies, so go.mod pins their versions.
set -euo pipefail
cd "$(dirname "$0")"
out=${1:-.}
mkdir -p "$out"
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
go build -o "$bin/protoc-gen-go" google.golang.org/protobuf/cmd/protoc-gen-go
go build -o "$bin/protoc-gen-go-grpc" google.golang.org/grpc/cmd/protoc-gen-go-grpc
protoc -I . \
	--plugin=protoc-gen-go="$bin/protoc-gen-go" \
	--plugin=protoc-gen-go-grpc="$bin/protoc-gen-go-grpc" \
	--go_out="$out" --go_opt=paths=source_relative \
	--go-grpc_out="$out" --go-grpc_opt=paths=source_relative \
	cc/v1/cc.proto
if [ "$out" = . ]; then
	sha256sum cc/v1/cc.proto cc/v1/cc.pb.go cc/v1/cc_grpc.pb.go >cc/v1/generated.sum
fi
