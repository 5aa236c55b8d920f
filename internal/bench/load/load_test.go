package main

import (
	"bytes"
	"context"
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"cc.dev/cc/service"
	"github.com/jackc/pgx/v5"
)

var (
	ccOnce sync.Once
	ccBin  string
	ccErr  error
	ccDir  string
)

func TestMain(m *testing.M) {
	code := m.Run()
	if ccDir != "" {
		os.RemoveAll(ccDir)
	}
	os.Exit(code)
}

// builtCC is cc built from this module, once for the package's tests.
func builtCC(t *testing.T) string {
	t.Helper()
	ccOnce.Do(func() {
		if ccDir, ccErr = os.MkdirTemp("", "cc-load-test-"); ccErr == nil {
			ccBin, ccErr = buildCC(context.Background(), ccDir)
		}
	})
	if ccErr != nil {
		t.Fatal(ccErr)
	}
	return ccBin
}

// postgresURL is $CC_TEST_POSTGRES; without it the test is skipped,
// except under CI=true, where it fails.
func postgresURL(t *testing.T) string {
	t.Helper()
	u := os.Getenv("CC_TEST_POSTGRES")
	if u == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("CI must run this on PostgreSQL; .ci/test starts one")
		}
		t.Skip("CC_TEST_POSTGRES is not set (source .ci/pg/up.sh && cc_pg_up starts a PostgreSQL)")
	}
	return u
}

// tinyLoad runs the generator with 2 clients of 5 resources on setup,
// and checks the report: every project converged, the calls were timed
// (the stream of UploadBlob too), -o has the same Markdown, and no
// secret value is in it.
func tinyLoad(t *testing.T, setup string, extra ...string) string {
	out := filepath.Join(t.TempDir(), "load.md")
	args := append([]string{"-clients", "2", "-resources", "5", "-setups", setup, "-cc", builtCC(t), "-o", out}, extra...)
	var stdout, stderr bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if err := run(ctx, args, &stdout, &stderr); err != nil {
		t.Fatalf("run(%q) = %v; stderr:\n%s", args, err, stderr.String())
	}
	md := stdout.String()
	for _, want := range []string{"| " + setupTitle(setup) + " |", "| 2/2 yes |", "| GetState |", "| UploadBlob |", "| ApplyResource |"} {
		if !strings.Contains(md, want) {
			t.Errorf("the report has no %q:\n%s", want, md)
		}
	}
	if strings.Contains(md, "load-generator-value-of-") {
		t.Errorf("the report shows a secret value:\n%s", md)
	}
	if b, err := os.ReadFile(out); err != nil || string(b) != md {
		t.Errorf("-o %s = %q, %v; want the report on stdout", out, b, err)
	}
	return md
}

// issue 14: the load generator's tiny run on one cc server on SQLite
// converges.
func TestTinyLoadOnSQLiteConverges(t *testing.T) {
	md := tinyLoad(t, "sqlite")
	if !strings.Contains(md, "| 1 | 2 | 10 | ") {
		t.Errorf("the SQLite row is not 1 server, 2 clients, 10 resources:\n%s", md)
	}
}

// issue 14: the tiny run on two replicas on a fresh PostgreSQL database
// converges, and the database is dropped after.
func TestTinyLoadOnPostgresConverges(t *testing.T) {
	admin := postgresURL(t)
	before := loadDatabases(t, admin)
	md := tinyLoad(t, "postgres", "-postgres", admin)
	if !strings.Contains(md, "| 2 | 2 | 10 | ") {
		t.Errorf("the PostgreSQL row is not 2 servers, 2 clients, 10 resources:\n%s", md)
	}
	if after := loadDatabases(t, admin); len(after) != len(before) {
		t.Errorf("databases cc_load_* = %q after the run, %q before: not dropped", after, before)
	}
}

// issue 14: a password in the PostgreSQL URL is never printed, whether
// the run succeeds or a server's log quotes the URL in an error.
func TestPostgresPasswordNeverPrinted(t *testing.T) {
	admin := postgresURL(t)
	u, err := url.Parse(admin)
	if err != nil {
		t.Fatal(err)
	}
	const canary = "canary-pw-5Qx8"
	u.User = url.UserPassword(u.User.Username(), canary)
	args := []string{"-clients", "1", "-resources", "2", "-setups", "postgres", "-cc", builtCC(t), "-postgres", u.String()}
	var stdout, stderr bytes.Buffer
	err = run(context.Background(), args, &stdout, &stderr)
	all := stdout.String() + stderr.String()
	if err != nil {
		all += err.Error()
	}
	if strings.Contains(all, canary) {
		t.Errorf("the password is printed (run() = %v):\n%s", err, all)
	}
}

// loadDatabases lists the databases named cc_load_*.
func loadDatabases(t *testing.T, admin string) []string {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		t.Fatal(scrub(err, admin))
	}
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, "SELECT datname FROM pg_database WHERE datname LIKE 'cc_load_%' ORDER BY datname")
	if err != nil {
		t.Fatal(err)
	}
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	return names
}

// issue 14: bad flags are usage errors, and -setups postgres needs a
// PostgreSQL URL.
func TestLoadFlagsRejectBadValues(t *testing.T) {
	t.Setenv("CC_TEST_POSTGRES", "")
	for _, args := range [][]string{
		{"-clients", "0"},
		{"-resources", "-1"},
		{"-rounds", "0"},
		{"-setups", "sqlite,mysql"},
		{"-setups", "postgres"},
		{"extra"},
	} {
		_, err := parseFlags(args, &bytes.Buffer{})
		var ue *usageError
		if !errors.As(err, &ue) {
			t.Errorf("parseFlags(%q) = %v, want a usage error", args, err)
		}
	}
	cfg, err := parseFlags([]string{"-setups", "postgres,sqlite", "-postgres", "postgres://u@h/db"}, &bytes.Buffer{})
	if err != nil || strings.Join(cfg.setups, ",") != "sqlite,postgres" {
		t.Errorf("parseFlags(-setups postgres,sqlite) = %v, %v; want sqlite,postgres", cfg, err)
	}
}

// issue 14: the PostgreSQL URL's password is never printed.
func TestPostgresPasswordRedacted(t *testing.T) {
	const admin = "postgres://cc:hunter2-secret@127.0.0.1:5432/postgres?sslmode=disable"
	if got := service.RedactDB(admin); strings.Contains(got, "hunter2") || !strings.Contains(got, "xxxxx") {
		t.Errorf("service.RedactDB(%q) = %q, want the password as xxxxx", admin, got)
	}
	if err := scrub(errors.New("failed: password hunter2-secret"), admin); strings.Contains(err.Error(), "hunter2") {
		t.Errorf("scrub() = %v, want no password", err)
	}
	const odd = "postgres://cc:p%40ss%2Fw0rd@127.0.0.1/postgres"
	if err := scrub(errors.New("open "+odd+": p@ss/w0rd refused"), odd); strings.Contains(err.Error(), "w0rd") {
		t.Errorf("scrub() = %v, want no password, escaped or not", err)
	}
	got, err := databaseURL(admin, "cc_load_1")
	if err != nil || got != "postgres://cc:hunter2-secret@127.0.0.1:5432/cc_load_1?sslmode=disable" {
		t.Errorf("databaseURL() = %q, %v", got, err)
	}
	if _, err := databaseURL("mysql://x@h/db", "d"); err == nil {
		t.Error("databaseURL(mysql://...) = nil error")
	}
}

// issue 14: percentiles are nearest-rank, method names lose their
// service.
func TestPercentileAndMethodName(t *testing.T) {
	var ds []time.Duration
	for i := 1; i <= 100; i++ {
		ds = append(ds, time.Duration(i)*time.Millisecond)
	}
	for p, want := range map[float64]time.Duration{50: 50 * time.Millisecond, 99: 99 * time.Millisecond, 100: 100 * time.Millisecond, 1: time.Millisecond} {
		if got := percentile(ds, p); got != want {
			t.Errorf("percentile(1..100 ms, %v) = %v, want %v", p, got, want)
		}
	}
	if got := percentile(nil, 50); got != 0 {
		t.Errorf("percentile(nil) = %v", got)
	}
	if got := methodName("/cc.v1.CC/ApplyResource"); got != "ApplyResource" {
		t.Errorf("methodName() = %q", got)
	}
}

// issue 14: a project that failed or did not converge fails the run.
func TestNotConvergedFailsTheRun(t *testing.T) {
	ok := &round{outcomes: []outcome{{project: "load-00", converged: true}}}
	if err := notConverged(map[string][]*round{"sqlite": {ok}}); err != nil {
		t.Errorf("notConverged(all converged) = %v", err)
	}
	bad := &round{outcomes: []outcome{{project: "load-01", unchanged: 3}, {project: "load-02", err: errors.New("boom")}}}
	err := notConverged(map[string][]*round{"sqlite": {ok}, "postgres": {bad}})
	if err == nil || !strings.Contains(err.Error(), "load-01 did not converge") || !strings.Contains(err.Error(), "boom") {
		t.Errorf("notConverged() = %v, want load-01 and boom named", err)
	}
}
