package simulate

import (
	"fmt"
	"io"
	"slices"

	"github.com/webhooklint/webhooklint/diag"
	"github.com/webhooklint/webhooklint/internal/ruledocs"
	"github.com/webhooklint/webhooklint/report"
	"github.com/webhooklint/webhooklint/rules"
)

// Rule names the findings simulate reports in the formats made for
// findings (SARIF, JUnit, GitLab…): what can reject the request.
const Rule = ruledocs.SimulateFinding

// Answer is simulate's answer for one request: a chain per deployment
// unit, each unit one installation. It is the report.Document of the run,
// so the text and json formats print the chains as they are.
type Answer struct {
	Units []Unit
	// Headed heads each chain in text with its unit's label: the input
	// had several units, some perhaps skipped.
	Headed bool
}

// Unit is the chain of one deployment unit.
type Unit struct {
	Label string
	Chain *Chain
}

// ExitCode is the worst of the chains' exit statuses.
func (r *Answer) ExitCode() int {
	code := 0
	for _, u := range r.Units {
		code = max(code, u.Chain.ExitCode())
	}
	return code
}

// WriteText writes each chain for people.
func (r *Answer) WriteText(w io.Writer) error {
	for i, u := range r.Units {
		if r.Headed {
			if i > 0 {
				if _, err := fmt.Fprintln(w); err != nil {
					return err
				}
			}
			if _, err := fmt.Fprintf(w, "# %s\n", u.Label); err != nil {
				return err
			}
		}
		if err := u.Chain.WriteText(w); err != nil {
			return err
		}
	}
	return nil
}

// WriteJSON writes one JSON document per chain.
func (r *Answer) WriteJSON(w io.Writer) error {
	for _, u := range r.Units {
		if err := u.Chain.WriteJSON(w); err != nil {
			return err
		}
	}
	return nil
}

// Diagnostics are what makes the exit status 1, as findings: the webhook
// or policy at which the request is rejected whatever the backends do, or
// else each fail-closed webhook whose backend being down rejects it.
func (r *Answer) Diagnostics() []diag.Diagnostic {
	var out []diag.Diagnostic
	for _, u := range r.Units {
		for _, d := range u.Chain.diagnostics() {
			if r.Headed {
				d.Units = []string{u.Label}
			}
			out = append(out, d)
		}
	}
	return out
}

func (c *Chain) diagnostics() []diag.Diagnostic {
	calls := map[string]diag.Diagnostic{}
	for _, l := range []struct {
		kind  string
		calls []*Call
	}{{rules.Mutating, c.Mutating}, {rules.Validating, c.Validating}} {
		for _, call := range l.calls {
			calls[call.id()] = diag.Diagnostic{
				Rule: Rule, Object: &diag.Object{APIVersion: rules.V1, Kind: l.kind, Name: call.Configuration}, Webhook: call.Webhook,
				Message: call.Reason,
			}
		}
	}
	if c.Rejected != "" {
		d, ok := calls[c.Rejected]
		if ok {
			d.Message = "the API server rejects the request at this webhook whatever the backends do: " + d.Message
		} else {
			// An admission policy: it has no webhook to name.
			d = diag.Diagnostic{Rule: Rule, Message: "the API server rejects the request at " + c.Rejected + " whatever the backends do"}
		}
		d.Severity = diag.Error
		return []diag.Diagnostic{d}
	}
	var out []diag.Diagnostic
	for _, id := range c.BackendDown.RejectedBy {
		d := calls[id]
		d.Severity = diag.Warning
		d.Message = "the API server rejects the request if this webhook's backend is down (failurePolicy Fail); fail open or keep the backend available"
		out = append(out, d)
	}
	return out
}

// Write prints res in the named report format.
func Write(w io.Writer, format, toolVersion string, res *Answer) error {
	f, err := report.New(format, report.Options{})
	if err != nil {
		return err
	}
	ds := res.Diagnostics()
	slices.SortFunc(ds, diag.Compare)
	return f.Format(w, &report.Run{
		Diagnostics: ds, ToolVersion: toolVersion, ExitCode: res.ExitCode(), Document: res,
	})
}
