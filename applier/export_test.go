package applier

// WithTimers makes an Applier's locks wait for another holder and renew
// their lease by t instead of package time's timers, so that a test drives
// time instead of sleeping (issue 16 item 6).
func WithTimers(t timers) Option {
	return func(a *Applier) error {
		a.timers = t
		return nil
	}
}
