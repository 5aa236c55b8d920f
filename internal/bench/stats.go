package main

import (
	"slices"
	"time"
)

// sample is one run of one command.
type sample struct {
	wall time.Duration
	// rssKiB is the child's peak resident set (getrusage's ru_maxrss,
	// KiB on Linux).
	rssKiB int64
}

// result is every round of one command.
type result struct {
	spec    cmdSpec
	samples []sample
}

// median is the middle of xs (the mean of the middle two for an even
// count); 0 for none.
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	m := len(s) / 2
	if len(s)%2 == 1 {
		return s[m]
	}
	return (s[m-1] + s[m]) / 2
}

// span is the smallest and largest of xs.
func span(xs []float64) (lo, hi float64) {
	if len(xs) == 0 {
		return 0, 0
	}
	return slices.Min(xs), slices.Max(xs)
}

// seconds are the wall times of r's rounds.
func (r *result) seconds() []float64 {
	out := make([]float64, len(r.samples))
	for i, s := range r.samples {
		out[i] = s.wall.Seconds()
	}
	return out
}

// rss are the peak RSS of r's rounds, in KiB.
func (r *result) rss() []float64 {
	out := make([]float64, len(r.samples))
	for i, s := range r.samples {
		out[i] = float64(s.rssKiB)
	}
	return out
}

// ratios are r's times over base's, round by round (the rounds are
// interleaved, so each pair saw the same load), and the ratio of the
// medians.
func ratios(r, base *result) (perRound []float64, ofMedians float64) {
	a, b := r.seconds(), base.seconds()
	for i := range min(len(a), len(b)) {
		if b[i] > 0 {
			perRound = append(perRound, a[i]/b[i])
		}
	}
	if mb := median(b); mb > 0 {
		ofMedians = median(a) / mb
	}
	return perRound, ofMedians
}
