# Sourced by .ci/test: sets up what the BuildKit end-to-end tests need and
# exports CC_E2E_BUILDKIT and CC_E2E_REGISTRY for them (and CC_E2E_BUILDKITD,
# the binary, for tests that start a buildkitd of their own).
#
# - installs runc and busybox-static (the test base images are made from
#   /bin/busybox) from Debian when missing;
# - builds buildkitd, buildctl and a small registry server from this
#   directory's Go module, once per version, into
#   ${XDG_CACHE_HOME:-$HOME/.cache}/cc-e2e/ (outside the clone);
# - starts the registry on a free 127.0.0.1 port, then buildkitd with a
#   buildkitd.toml that mirrors docker.io to it over plain HTTP;
# - stops both on exit (cc_e2e_down, called from .ci/test's trap).
#
# Set CC_E2E=0 to skip all of it (the end-to-end tests then skip).

cc_e2e_down() {
	local pid
	for pid in ${CC_E2E_PIDS:-}; do
		kill "$pid" 2>/dev/null || true
	done
	for pid in ${CC_E2E_PIDS:-}; do
		wait "$pid" 2>/dev/null || true
	done
	CC_E2E_PIDS=
	if [ -n "${CC_E2E_DIR:-}" ]; then
		# buildkitd's native snapshots can hold read-only files.
		chmod -R u+w "$CC_E2E_DIR" 2>/dev/null || true
		rm -rf "$CC_E2E_DIR"
	fi
}

cc_e2e_up() {
	local here started
	here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
	started=$(date +%s)

	local missing=()
	command -v runc >/dev/null 2>&1 || missing+=(runc)
	[ -x /bin/busybox ] && /bin/busybox --list >/dev/null 2>&1 || missing+=(busybox-static)
	if [ ${#missing[@]} -gt 0 ]; then
		echo "e2e: installing ${missing[*]}" >&2
		apt-get update -qq >/dev/null
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
	fi

	# One build per version of the tool module.
	local key bin
	key=$(cat "$here/go.mod" "$here/go.sum" "$here/registry/main.go" | sha256sum | cut -c1-12)
	bin="${XDG_CACHE_HOME:-$HOME/.cache}/cc-e2e/buildkit-v0.34.2-$key"
	if [ ! -x "$bin/buildkitd" ] || [ ! -x "$bin/buildctl" ] || [ ! -x "$bin/registry" ]; then
		echo "e2e: building buildkitd, buildctl and registry into $bin (minutes the first time)" >&2
		mkdir -p "$bin.tmp"
		(cd "$here" && go build -trimpath -o "$bin.tmp/" \
			github.com/moby/buildkit/cmd/buildkitd github.com/moby/buildkit/cmd/buildctl ./registry)
		rm -rf "$bin"
		mv "$bin.tmp" "$bin"
	fi

	CC_E2E_DIR=$(mktemp -d /tmp/cc-e2e.XXXXXX)
	CC_E2E_PIDS=

	"$bin/registry" -addr-file "$CC_E2E_DIR/registry.addr" >"$CC_E2E_DIR/registry.log" 2>&1 &
	CC_E2E_PIDS="$CC_E2E_PIDS $!"
	local i
	for i in $(seq 100); do
		[ -s "$CC_E2E_DIR/registry.addr" ] && break
		sleep 0.1
	done
	if [ ! -s "$CC_E2E_DIR/registry.addr" ]; then
		echo "e2e: the registry did not start:" >&2
		cat "$CC_E2E_DIR/registry.log" >&2
		return 1
	fi
	local reg
	reg=$(cat "$CC_E2E_DIR/registry.addr")

	cat >"$CC_E2E_DIR/buildkitd.toml" <<-EOF
		[registry."docker.io"]
		  mirrors = ["$reg"]
		[registry."$reg"]
		  http = true
	EOF
	local sock="unix://$CC_E2E_DIR/buildkitd.sock"
	"$bin/buildkitd" --root "$CC_E2E_DIR/root" --addr "$sock" --config "$CC_E2E_DIR/buildkitd.toml" \
		--oci-worker-snapshotter=native --containerd-worker=false >"$CC_E2E_DIR/buildkitd.log" 2>&1 &
	CC_E2E_PIDS="$CC_E2E_PIDS $!"
	for i in $(seq 300); do
		"$bin/buildctl" --addr "$sock" debug workers >/dev/null 2>&1 && break
		sleep 0.2
	done
	if ! "$bin/buildctl" --addr "$sock" debug workers >/dev/null 2>&1; then
		echo "e2e: buildkitd did not start:" >&2
		tail -20 "$CC_E2E_DIR/buildkitd.log" >&2
		return 1
	fi

	export CC_E2E_BUILDKIT="$sock" CC_E2E_REGISTRY="$reg" CC_E2E_BUILDCTL="$bin/buildctl" CC_E2E_BUILDKITD="$bin/buildkitd"
	echo "e2e: buildkitd at $sock, registry at $reg (docker.io mirror), ready in $(($(date +%s) - started))s" >&2
}
