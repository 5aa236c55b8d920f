package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
)

// profileTop is pprof's top entries of one command's CPU profile.
type profileTop struct {
	title, file, top string
}

// profileSpecs runs each cc command of specs once more with --cpuprofile
// (with -profile), and keeps pprof's top 8 by flat time.
func (r *runner) profileSpecs(ctx context.Context, n int, specs []cmdSpec) error {
	if r.cfg.profile == "" {
		return nil
	}
	for _, s := range specs {
		if !s.cc {
			continue
		}
		base := filepath.Join(r.cfg.profile, fmt.Sprintf("%d-%s", n, s.id))
		if n == 0 {
			base = filepath.Join(r.cfg.profile, s.id)
		}
		fmt.Fprintf(r.progress, "bench: profiling %s\n", s.label)
		var other string
		if s.alsoProfile != nil {
			other = s.alsoProfile(base + "-server.pprof")
		}
		_, err := r.runOnce(ctx, s, "--cpuprofile", base+".pprof")
		if s.alsoProfile != nil {
			s.alsoProfile("")
		}
		if err != nil {
			return err
		}
		title := fmt.Sprintf("%s, %s resources", s.label, commas(n))
		if n == 0 {
			title = s.label
		}
		if err := r.addTop(ctx, title, base+".pprof"); err != nil {
			return err
		}
		if other != "" {
			if err := r.addTop(ctx, title+": "+other, base+"-server.pprof"); err != nil {
				return err
			}
		}
	}
	return nil
}

// addTop keeps go tool pprof -top of file.
func (r *runner) addTop(ctx context.Context, title, file string) error {
	out, err := goCmd(ctx, ".", nil, "tool", "pprof", "-top", "-nodecount=8", r.bin.cc, file)
	if err != nil {
		return err
	}
	var keep []string
	for _, l := range strings.Split(out, "\n") {
		if k, _, ok := strings.Cut(l, ":"); ok && (k == "File" || k == "Build ID" || k == "Type" || k == "Time") {
			continue
		}
		keep = append(keep, l)
	}
	r.profiles = append(r.profiles, profileTop{title: title, file: file, top: strings.Join(keep, "\n")})
	return nil
}

// profilesMarkdown writes the kept profiles.
func (r *runner) profilesMarkdown(b *strings.Builder) {
	if len(r.profiles) == 0 {
		return
	}
	b.WriteString("### CPU profiles (top 8 by flat time)\n\n")
	for _, p := range r.profiles {
		fmt.Fprintf(b, "%s (`%s`):\n\n```\n%s\n```\n\n", p.title, filepath.Base(p.file), p.top)
	}
}
