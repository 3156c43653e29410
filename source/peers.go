package source

// The editor server lints the units of the files it shows, and keeps the
// other Flux entries of their clusters as peers (workspaceUnits): the
// ordering step may compare what they apply, but in a workspace of
// thousands of entries most edits need none of it. A peer is linted only
// when an entry linted applies a fail-closed webhook whose backend, or a
// custom resource whose CRD, it does not apply itself, or when it reads a
// file a unit linted reads (both would report a finding there, and the
// finding names the units that found it only when not all did).

// unpeerShared makes a peer needed when it reads a manifest a needed unit
// reads. The files entries are written in do not count: every
// Kustomization reads its own (findings on what it sets go there, at its
// own lines), so a file of many entries would make them all needed.
func unpeerShared(units []*unit, need map[*unit]bool) {
	entryFiles := map[string]bool{}
	var needed []*unit
	for _, u := range units {
		if u.gitops != nil {
			entryFiles[u.gitops.At.File] = true
		}
		if need[u] {
			needed = append(needed, u)
		}
	}
	for _, u := range units {
		if !u.peer {
			continue
		}
		if u.kind != kustomizeUnit {
			u.peer, need[u] = false, true // what it reads is a folder's: lint it as before
			continue
		}
	files:
		for f := range u.reads {
			if entryFiles[f] {
				continue
			}
			for _, n := range needed {
				if n.kind.covers(n, f) {
					u.peer, need[u] = false, true
					break files
				}
			}
		}
	}
}

// lintPeers lints the peers when the ordering step compares what they
// apply, setting their results; lint lints a list of units.
func lintPeers(units []*unit, results []*unitResult, lint func([]*unit) []*unitResult) {
	var peers []int
	compares := false
	for i, u := range units {
		switch {
		case u.peer:
			peers = append(peers, i)
		case fluxEntry(u) && needsOtherEntries(results[i].applied):
			compares = true
		}
	}
	if !compares || len(peers) == 0 {
		return
	}
	list := make([]*unit, len(peers))
	for j, i := range peers {
		units[i].peer = false
		list[j] = units[i]
	}
	for j, r := range lint(list) {
		results[peers[j]] = r
	}
}

// needsOtherEntries reports whether orderProblems compares a with what
// the other entries of its cluster apply.
func needsOtherEntries(a *applied) bool {
	if a == nil {
		return false
	}
	for _, h := range a.Hooks {
		if !a.Services[h.Service] {
			return true
		}
	}
	for gk := range a.Custom {
		if a.CRDs[gk] == "" {
			return true
		}
	}
	return false
}
