package source

import (
	"slices"
	"testing"

	releaseutil "helm.sh/helm/v4/pkg/release/v1/util"

	"github.com/webhooklint/webhooklint/rules"
)

// install-order reads Helm's order of kinds from rules, which does not
// import Helm: it must stay the order of the Helm the charts render with.
func TestHelmInstallOrderIsHelms(t *testing.T) {
	if !slices.Equal(rules.HelmInstallOrder, []string(releaseutil.InstallOrder)) {
		t.Errorf("rules.HelmInstallOrder = %v\nHelm's InstallOrder = %v", rules.HelmInstallOrder, releaseutil.InstallOrder)
	}
}
