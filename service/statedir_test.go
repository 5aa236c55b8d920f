package service_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"cc.dev/cc/service"
)

// keyText is a key file's text as cc writes it.
const keyText = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff\n"

// openProject opens root's embedded state and closes it, returning
// OpenProject's error.
func openProject(t *testing.T, root string) error {
	t.Helper()
	_, closeFn, err := service.OpenProject(context.Background(), root)
	if err == nil {
		if err := closeFn(); err != nil {
			t.Fatal(err)
		}
	}
	return err
}

// TestOwnStateDirLink: a .cc that is a symbolic link (a clone can hold
// one, another user of the machine can make one) is followed only to a
// directory that no one but this user and root can change; one to
// nothing, or to a directory under one that others may write to, is
// refused, and nothing is written where it leads.
func TestOwnStateDirLink(t *testing.T) {
	root, elsewhere := t.TempDir(), t.TempDir()
	link := filepath.Join(root, ".cc")
	os.Symlink(filepath.Join(elsewhere, "missing"), link)
	err := openProject(t, root)
	if err == nil || !strings.Contains(err.Error(), ".cc is a symbolic link to nothing") {
		t.Fatalf("OpenProject through a dangling .cc = %v, want it refused", err)
	}
	if es, _ := os.ReadDir(elsewhere); len(es) != 0 {
		t.Errorf("the link's target holds %d entries after the refusal, want none", len(es))
	}

	open := filepath.Join(elsewhere, "open")
	os.Mkdir(open, 0o777)
	os.Chmod(open, 0o777) // anyone may move what is in it
	os.Mkdir(filepath.Join(open, "state"), 0o700)
	os.Remove(link)
	os.Symlink(filepath.Join(open, "state"), link)
	err = openProject(t, root)
	if err == nil || !strings.Contains(err.Error(), "and others may change "+open+" (mode drwxrwxrwx)") {
		t.Fatalf("OpenProject through a .cc under a directory anyone may write to = %v, want it refused", err)
	}
	if es, _ := os.ReadDir(filepath.Join(open, "state")); len(es) != 0 {
		t.Errorf("the link's target holds %d entries after the refusal, want none", len(es))
	}

	// Sticky, as /tmp is: others cannot move what is this user's.
	os.Chmod(open, 0o777|os.ModeSticky)
	if err := openProject(t, root); err != nil {
		t.Fatalf("OpenProject through a .cc under a sticky directory: %v", err)
	}
	if _, err := os.Stat(filepath.Join(open, "state", "state.db")); err != nil {
		t.Errorf("the state is not where the link leads: %v", err)
	}
}

// TestOwnStateDirRefusesLinkedEntry: an entry of .cc that is a link
// (state.db pointing at someone else's database) is refused.
func TestOwnStateDirRefusesLinkedEntry(t *testing.T) {
	root, elsewhere := t.TempDir(), t.TempDir()
	os.Mkdir(filepath.Join(root, ".cc"), 0o700)
	if err := os.Symlink(filepath.Join(elsewhere, "state.db"), filepath.Join(root, ".cc", "state.db")); err != nil {
		t.Fatal(err)
	}
	err := openProject(t, root)
	if err == nil || !strings.Contains(err.Error(), "state.db is a symbolic link") {
		t.Fatalf("OpenProject with a linked state.db = %v, want it refused", err)
	}
	if _, err := os.Stat(filepath.Join(elsewhere, "state.db")); err == nil {
		t.Error("the linked database was made")
	}
}

// TestOwnStateDirRefusesReadableKey: a secret key that others may read
// is one cc did not make (a checkout makes files 0644): whoever else has
// it reads every secret value sealed with it. It is refused, and the
// message shows no part of it; once the user makes it private, it is
// used.
func TestOwnStateDirRefusesReadableKey(t *testing.T) {
	root := t.TempDir()
	os.Mkdir(filepath.Join(root, ".cc"), 0o755)
	key := filepath.Join(root, ".cc", "state.db.key")
	if err := os.WriteFile(key, []byte(keyText), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Chmod(key, 0o644) // whatever the umask
	err := openProject(t, root)
	if err == nil || !strings.Contains(err.Error(), "state.db.key is not private (mode -rw-r--r--)") {
		t.Fatalf("OpenProject with a key others may read = %v, want it refused", err)
	}
	if strings.Contains(err.Error(), "00112233") {
		t.Errorf("the refusal shows the key: %v", err)
	}
	if _, err := os.Stat(service.ProjectStatePath(root)); err == nil {
		t.Error("the database was made beside a refused key")
	}
	os.Chmod(key, 0o600)
	if err := openProject(t, root); err != nil {
		t.Fatalf("OpenProject once the key is private: %v", err)
	}
	if b, _ := os.ReadFile(key); string(b) != keyText {
		t.Errorf("the key file holds %q after the open, want the user's key", b)
	}
}

// TestOwnStateDirMadePrivate: a .cc that others may enter (git checks
// directories out 0755) is made 0700.
func TestOwnStateDirMadePrivate(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, ".cc")
	os.Mkdir(dir, 0o755)
	os.Chmod(dir, 0o755)
	if err := openProject(t, root); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o700 {
		t.Errorf(".cc has mode %v after the open, want 0700", fi.Mode().Perm())
	}
	for _, name := range []string{"state.db", "state.db.key"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestOwnStateDirRefusesOthersFiles: a .cc, an entry of it, or the
// directory a linked .cc leads to, owned by another user (who planted
// it there), is refused; so is a link under a directory of another
// user's. Only root can give a file to another user; CI runs as root.
func TestOwnStateDirRefusesOthersFiles(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root, to give a file to another user")
	}
	for _, name := range []string{"state.db", "", "linked", "under"} {
		root := t.TempDir()
		dir := filepath.Join(root, ".cc")
		target := dir
		switch name {
		case "linked", "under":
			other := filepath.Join(t.TempDir(), "other")
			os.Mkdir(other, 0o755)
			target = filepath.Join(other, "state")
			os.Mkdir(target, 0o700)
			os.Symlink(target, dir)
			if name == "under" {
				target = other
			}
		case "":
			os.Mkdir(dir, 0o700)
		default:
			os.Mkdir(dir, 0o700)
			target = filepath.Join(dir, name)
			os.WriteFile(target, nil, 0o600)
		}
		if err := os.Lchown(target, 4242, 4242); err != nil {
			t.Fatal(err)
		}
		want := "is owned by user 4242, not by you (user 0)"
		switch name {
		case "linked":
			want = "which is not a directory of yours"
		case "under":
			want = "and others may change " + target
		}
		err := openProject(t, root)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("OpenProject with %s owned by another user = %v, want it refused (%s)", target, err, want)
		}
	}
}

// TestStateDirIgnored: a .cc/.gitignore keeps everything out of git only
// with a line that ignores every file and none that takes one back.
func TestStateDirIgnored(t *testing.T) {
	root := t.TempDir()
	if service.StateDirIgnored(root) {
		t.Error("no .cc at all: ignored, want not")
	}
	if err := openProject(t, root); err != nil {
		t.Fatal(err)
	}
	if !service.StateDirIgnored(root) {
		t.Error("cc's own .gitignore: not ignored, want ignored")
	}
	for text, want := range map[string]bool{
		"mine\n":                    false,
		"":                          false,
		"*\n":                       true,
		"  /*  \n":                  true,
		"# all\n**\n":               true,
		"*\n!state.db.key\n":        false,
		"state.db\nstate.db.key\n":  false,
		"*.db\n*.key\nplan-key\n":   false,
		"# cc's\n*\n# nothing else": true,
	} {
		os.WriteFile(filepath.Join(root, ".cc", ".gitignore"), []byte(text), 0o644)
		if got := service.StateDirIgnored(root); got != want {
			t.Errorf(".gitignore %q: StateDirIgnored = %v, want %v", text, got, want)
		}
	}
}
