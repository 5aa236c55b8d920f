package main

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestReplicaListIsLocalOnlyWhenEveryReplicaIs is issue 14 (several
// replicas): a list of replicas is dialled without TLS only when each of
// them is on this machine.
func TestReplicaListIsLocalOnlyWhenEveryReplicaIs(t *testing.T) {
	for addr, local := range map[string]bool{
		"127.0.0.1:1,127.0.0.1:2": true, "localhost:1, [::1]:2": true, "unix:///a.sock,127.0.0.1:2": true,
		"127.0.0.1:1,192.0.2.7:7233": false, "cc-a.example.com:443,cc-b.example.com:443": false,
	} {
		if got := isLocal(addr); got != local {
			t.Errorf("isLocal(%q) = %t, want %t", addr, got, local)
		}
	}
}

// raceConfig is a project "race" of n volumes named SIDE-I: the two sides
// of a race write the same project with different resources, so that the
// database shows whose mutations it holds (and each side's plan, made
// after the other's first mutations, deletes those: both sides run with
// --allow-data-loss, so that only the lock stands between them).
func raceConfig(side string, n int) string {
	var b strings.Builder
	b.WriteString("project = \"race\"\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "\nvolume \"%s-%d\" {\n  size = \"1Gi\"\n}\n", side, i)
	}
	return b.String()
}

// TestReplicasTwoAppliesOneProceeds is issue 14's acceptance 2: two
// replicas on one PostgreSQL database; two applies of the same project,
// one through each replica, at once. Exactly one proceeds; the other
// fails naming the lock's holder (the winner's pid); the database holds
// the winner's mutations only, at serials 1 to n, one each.
func TestReplicasTwoAppliesOneProceeds(t *testing.T) {
	db := replicaDatabase(t)
	ps := startReplicas(t, db, 2)
	const n = 150
	type side struct {
		name     string
		cmd      *exec.Cmd
		out, err strings.Builder
	}
	sides := []*side{{name: "a"}, {name: "b"}}
	for i, s := range sides {
		dir := t.TempDir()
		writeFile(t, filepath.Join(dir, "main.hcl"), raceConfig(s.name, n))
		s.cmd = client(dir, ps[i].addr, nil, "apply", "--auto-approve", "--allow-data-loss", "--parallelism", "1", "main.hcl")
		s.cmd.Stdout, s.cmd.Stderr = &s.out, &s.err
	}
	for _, s := range sides {
		if err := s.cmd.Start(); err != nil {
			t.Fatal(err)
		}
	}
	var won, lost []*side
	for _, s := range sides {
		if s.cmd.Wait() == nil {
			won = append(won, s)
		} else {
			lost = append(lost, s)
		}
	}
	if len(won) != 1 {
		t.Fatalf("%d applies proceeded, want exactly one:\na: %s%s\nb: %s%s", len(won), sides[0].out.String(), sides[0].err.String(), sides[1].out.String(), sides[1].err.String())
	}
	w, l := won[0], lost[0]
	if want := fmt.Sprintf("Apply complete: %d created", n); !strings.Contains(w.out.String(), want) {
		t.Errorf("the apply that proceeded says:\n%s%s", w.out.String(), w.err.String())
	}
	holder := fmt.Sprintf("(cc apply, pid %d)", w.cmd.Process.Pid)
	if msg := l.err.String(); !strings.Contains(msg, "project race is locked by ") || !strings.Contains(msg, holder) {
		t.Errorf("the other apply does not name the holder %s:\n%s%s", holder, l.out.String(), msg)
	}
	// No interleaving: the winner's resources only, one mutation each, at
	// serials 1 to n, and the lock released.
	want := fmt.Sprintf("%d|%d|%d|1|%d|%d", n, n, n, n, n)
	if got := psql(t, db, fmt.Sprintf(`SELECT count(*), count(DISTINCT serial), count(*) FILTER (WHERE name LIKE '%s-%%'), min(serial), max(serial),
		(SELECT serial FROM projects WHERE name = 'race') FROM resources WHERE project = 'race'`, w.name)); got != want {
		t.Errorf("resources of project race: count, distinct serials, the winner's, min and max serial, project serial = %s, want %s", got, want)
	}
	if got := psql(t, db, "SELECT count(*) FROM locks WHERE project = 'race'"); got != "0" {
		t.Errorf("%s locks left on project race", got)
	}
}
