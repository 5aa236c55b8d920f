# Sourced by .ci/test: starts a throwaway PostgreSQL for the tests that run
# the service on it, and exports CC_TEST_POSTGRES, the URL of a superuser
# connection to its "postgres" database (tests create a database each).
#
# - installs postgresql from Debian when initdb is missing;
# - runs initdb as the postgres user into a temporary directory, then
#   starts the server on 127.0.0.1 at a free port (no Unix socket outside
#   that directory, trust authentication on loopback only);
# - stops it and removes the directory on exit (cc_pg_down, from .ci/test's
#   trap).
#
# Set CC_PG=0 to skip all of it (the PostgreSQL runs of the tests then skip
# outside CI; under CI=true they fail, so CI cannot skip them silently).

cc_pg_bindir() {
	local d
	for d in /usr/lib/postgresql/*/bin; do
		if [ -x "$d/initdb" ]; then
			echo "$d"
			return 0
		fi
	done
	return 1
}

cc_pg_down() {
	if [ -n "${CC_PG_DIR:-}" ] && [ -d "$CC_PG_DIR/data" ]; then
		su postgres -s /bin/sh -c "$(cc_pg_bindir)/pg_ctl -D '$CC_PG_DIR/data' -m immediate -w stop" >/dev/null 2>&1 || true
	fi
	if [ -n "${CC_PG_DIR:-}" ]; then
		rm -rf "$CC_PG_DIR"
	fi
	CC_PG_DIR=
}

cc_pg_up() {
	local bin port
	if ! bin=$(cc_pg_bindir); then
		echo "pg: installing postgresql" >&2
		apt-get update -qq >/dev/null
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
		bin=$(cc_pg_bindir)
	fi
	# Debian's package may have started its own cluster: it is not used.
	CC_PG_DIR=$(mktemp -d /tmp/cc-pg.XXXXXX)
	chown postgres "$CC_PG_DIR"
	chmod 700 "$CC_PG_DIR"
	su postgres -s /bin/sh -c "$bin/initdb -D '$CC_PG_DIR/data' -U postgres -A trust --no-sync -E UTF8 >'$CC_PG_DIR/initdb.log' 2>&1" || {
		cat "$CC_PG_DIR/initdb.log" >&2
		return 1
	}
	port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])' 2>/dev/null ||
		echo $((20000 + RANDOM % 20000)))
	su postgres -s /bin/sh -c "$bin/pg_ctl -D '$CC_PG_DIR/data' -l '$CC_PG_DIR/server.log' -w -t 60 \
		-o \"-h 127.0.0.1 -p $port -k '$CC_PG_DIR' -c max_connections=300 -c fsync=on\" start" >/dev/null || {
		cat "$CC_PG_DIR/server.log" >&2
		return 1
	}
	export CC_TEST_POSTGRES="postgres://postgres@127.0.0.1:$port/postgres?sslmode=disable"
	export CC_PG_BIN="$bin"
	echo "pg: PostgreSQL $("$bin/postgres" --version | awk '{print $3}') on 127.0.0.1:$port" >&2
}
