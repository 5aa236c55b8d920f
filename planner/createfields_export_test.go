package planner

// SetParallelCreates sets how many creates a plan has before their fields
// are computed on every core, until the returned func restores it.
func SetParallelCreates(n int) (restore func()) {
	old := parallelCreates
	parallelCreates = n
	return func() { parallelCreates = old }
}
