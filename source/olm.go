package source

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/Masterminds/semver/v3"
	yaml "go.yaml.in/yaml/v3"

	"github.com/webhooklint/webhooklint/diag"
	"github.com/webhooklint/webhooklint/engine"
	"github.com/webhooklint/webhooklint/internal/overlay"
	"github.com/webhooklint/webhooklint/rules"
)

// An OLM package-manifest tree (operator-sdk before bundles: a folder
// holding <name>.package.yaml and one folder per released version, each
// with its ClusterServiceVersion) keeps every release it published. Only
// a channel's currentCSV, and releases newer than it not yet in a channel,
// are what anyone installs; the older folders are archives. That a folder
// is archived is a stated fact of the package.yaml and the CSVs, never of
// the folder's name. The bundle format (bundle/manifests with
// bundle/metadata) has no package.yaml and is left alone.

// olmCSV is what a ClusterServiceVersion says about its place in the
// package.
type olmCSV struct {
	name, replaces string
	version        *semver.Version // nil when spec.version is no semver
	shown          string          // spec.version as written
}

// olmMemo keeps what archivedBundle read: each package's channels, and
// each folder's answer (the loose files of a folder beside a
// kustomization are a unit each).
type olmMemo struct {
	packages map[string][]olmChannel
	folders  map[string]string
}

// archivedBundle returns, for a folder of an OLM package-manifest tree
// whose CSV every channel has moved past (older than its currentCSV by
// spec.version, or below it in the replaces chain), why it is archived;
// otherwise "".
func archivedBundle(dir string, memo *olmMemo) string {
	by, ok := memo.folders[dir]
	if !ok {
		by = archivedFolder(dir, memo)
		memo.folders[dir] = by
	}
	return by
}

func archivedFolder(dir string, memo *olmMemo) string {
	csv, ok := readCSV(dir)
	if !ok {
		return ""
	}
	chans, ok := memo.packages[filepath.Dir(dir)]
	if !ok {
		chans = readPackage(filepath.Dir(dir))
		memo.packages[filepath.Dir(dir)] = chans
	}
	if len(chans) == 0 {
		return ""
	}
	for _, c := range chans {
		if !c.moved(csv) {
			return ""
		}
	}
	c := chans[0] // the default channel when the package names one
	return fmt.Sprintf("archived OLM bundle %s (%s's %s channel is at %s)", csv.shown, c.pkg, c.name, c.current.name)
}

// olmChannel is one channel of a package: its current CSV and every CSV
// of the package by name, to follow the replaces chain.
type olmChannel struct {
	pkg, name string
	current   olmCSV
	byName    map[string]olmCSV
}

// moved reports whether the channel has moved past csv.
func (c olmChannel) moved(csv olmCSV) bool {
	if csv.name == c.current.name {
		return false
	}
	seen := map[string]bool{}
	for r := c.current.replaces; r != "" && !seen[r]; r = c.byName[r].replaces {
		if r == csv.name {
			return true
		}
		seen[r] = true
	}
	return csv.version != nil && c.current.version != nil && csv.version.LessThan(c.current.version)
}

// readPackage reads the package.yaml of pkgDir and the CSVs of its version
// folders, and returns its channels whose currentCSV is among them, the
// default channel first; nil when pkgDir is no package-manifest tree or a
// channel's current CSV is not there (nothing then says what is current).
func readPackage(pkgDir string) []olmChannel {
	entries, err := overlay.ReadDir(pkgDir)
	if err != nil {
		return nil
	}
	var file string
	byName := map[string]olmCSV{}
	for _, e := range entries {
		switch {
		case !e.IsDir() && strings.HasSuffix(e.Name(), ".package.yaml") && file == "":
			file = e.Name()
		case e.IsDir():
			if csv, ok := readCSV(filepath.Join(pkgDir, e.Name())); ok {
				byName[csv.name] = csv
			}
		}
	}
	if file == "" {
		return nil
	}
	data, err := overlay.ReadDiskFile(filepath.Join(pkgDir, file))
	if err != nil {
		return nil
	}
	var pkg struct {
		PackageName    string `yaml:"packageName"`
		DefaultChannel string `yaml:"defaultChannel"`
		Channels       []struct {
			Name       string `yaml:"name"`
			CurrentCSV string `yaml:"currentCSV"`
		} `yaml:"channels"`
	}
	if yaml.Unmarshal(data, &pkg) != nil || len(pkg.Channels) == 0 {
		return nil
	}
	var out []olmChannel
	for _, ch := range pkg.Channels {
		cur, ok := byName[ch.CurrentCSV]
		if !ok {
			return nil
		}
		out = append(out, olmChannel{pkg: file, name: ch.Name, current: cur, byName: byName})
	}
	slices.SortStableFunc(out, func(a, b olmChannel) int {
		if (a.name == pkg.DefaultChannel) != (b.name == pkg.DefaultChannel) {
			if a.name == pkg.DefaultChannel {
				return -1
			}
			return 1
		}
		return strings.Compare(a.name, b.name)
	})
	return out
}

// readCSV reads the one ClusterServiceVersion of a version folder.
func readCSV(dir string) (olmCSV, bool) {
	entries, err := overlay.ReadDir(dir)
	if err != nil {
		return olmCSV{}, false
	}
	var found []string
	for _, e := range entries {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".clusterserviceversion.yaml") {
			found = append(found, e.Name())
		}
	}
	if len(found) != 1 {
		return olmCSV{}, false
	}
	data, err := overlay.ReadDiskFile(filepath.Join(dir, found[0]))
	if err != nil {
		return olmCSV{}, false
	}
	var m struct {
		Kind     string `yaml:"kind"`
		Metadata struct {
			Name string `yaml:"name"`
		} `yaml:"metadata"`
		Spec struct {
			Version  string `yaml:"version"`
			Replaces string `yaml:"replaces"`
		} `yaml:"spec"`
	}
	if yaml.Unmarshal(data, &m) != nil || m.Kind != "ClusterServiceVersion" || m.Metadata.Name == "" {
		return olmCSV{}, false
	}
	csv := olmCSV{name: m.Metadata.Name, replaces: m.Spec.Replaces, shown: m.Spec.Version}
	if v, err := semver.StrictNewVersion(m.Spec.Version); err == nil {
		csv.version = v
	}
	if csv.shown == "" {
		csv.shown = filepath.Base(dir)
	}
	return csv, true
}

// bundleFolder is the one folder whose files a unit lints as kubectl
// applies them (a loose file's, a plain folder's), or "": a version
// folder is archived as a whole.
func bundleFolder(u *unit) string {
	switch {
	case u.kind == fileUnit && u.file.Name != "" && u.file.Name != "-":
		return filepath.Dir(u.absFile())
	case u.kind == folderUnit && !u.recursive:
		return u.dir
	}
	return ""
}

// archived lowers to info the warnings and errors of a unit in an
// archived bundle folder (by says why): nothing installs it, so what it
// would cause is worth knowing, not fixing. One note at the first says
// why, with how to state otherwise; the findings keep their messages.
func archived(ds []diag.Diagnostic, by string) []diag.Diagnostic {
	var first *diag.Diagnostic
	count := 0
	for i := range ds {
		if ds[i].Severity == diag.Info {
			continue
		}
		ds[i].Severity = diag.Info
		ds[i].DependsOnOverlay = true // a severity override does not raise it again
		count++
		if first == nil || diag.Compare(ds[i], *first) < 0 {
			first = &ds[i]
		}
	}
	if first == nil {
		return ds
	}
	return append(ds, engine.LoweredNote(rules.OLMArchivedBundleRule, *first, count, by,
		"lint the current bundle, or name this folder in units.entries"))
}
