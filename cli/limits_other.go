//go:build !linux

package cli

// systemLimits knows no bound outside Linux; GOMEMLIMIT still applies.
func systemLimits() []int64 { return nil }
