package celcheck

// MinimumKubeMinor returns the oldest Kubernetes minor version, newer than
// this compiler's, whose API server accepts expr, and false if no supported
// version accepts it. It explains an error caused by a CEL library that
// is too new for the target version (webhook-facts §A.8, A56): a server of
// version N compiles new expressions with the N−1 library set.
//
// Other versions' environments are built only when this is called, which
// happens only for expressions the target version rejects.
func (c *Compiler) MinimumKubeMinor(expr string) (int, bool) {
	if c.Compile(expr).OK() || c.kubeMinor >= MaxKubeMinor {
		return 0, false
	}
	newest, err := For(MaxKubeMinor)
	if err != nil || !newest.Compile(expr).OK() {
		return 0, false
	}
	// Library sets only grow between the supported versions (removals are
	// paired with compatible replacements), so acceptance is monotonic and
	// a binary search finds the first accepting version.
	lo, hi := c.kubeMinor+1, MaxKubeMinor
	for lo < hi {
		mid := (lo + hi) / 2
		m, err := For(mid)
		if err != nil {
			return 0, false
		}
		if m.Compile(expr).OK() {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return lo, true
}
