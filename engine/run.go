package engine

import (
	"runtime/debug"

	"github.com/webhooklint/webhooklint/rules"
)

// Panic is a rule that panicked on an object: a bug in webhooklint. The
// other rules and objects are still linted.
type Panic struct {
	Rule  string
	Value any
	Stack []byte
}

// Guard runs one rule's check and returns the panic it raised, if any.
func Guard(rule string, check func()) (p *Panic) {
	defer func() {
		if v := recover(); v != nil {
			p = &Panic{Rule: rule, Value: v, Stack: debug.Stack()}
		}
	}()
	check()
	return nil
}

// Run runs the rules of rs over one object through the pass newPass
// prepares for the first of them (a pass reads the object once; each rule
// turns it to itself), each under Guard, and returns their panics.
func Run(rs []*rules.Rule, newPass func(*rules.Rule) *rules.Pass) []*Panic {
	var pass *rules.Pass
	var panics []*Panic
	for _, r := range rs {
		if pass == nil {
			pass = newPass(r)
		}
		if p := Guard(r.Name, func() { pass.For(r).Run() }); p != nil {
			panics = append(panics, p)
		}
	}
	return panics
}
