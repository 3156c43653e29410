package gitops

import (
	"io/fs"
	"path/filepath"
	"slices"
	"strings"

	sigsyaml "sigs.k8s.io/yaml"

	"github.com/webhooklint/webhooklint/internal/overlay"
)

// KustomizationText is the kustomization a controller builds the entry's
// folder with: the folder's own kustomization with the entry's settings
// set over it (namespace, name prefix and suffix) and added to it
// (patches, images, components, Argo CD's common labels and annotations),
// as kustomize-controller's generator and Argo CD's `kustomize edit` do.
// A folder without one gets the kustomization Flux generates: every
// manifest below it, and each subfolder that holds a kustomization as one
// resource. generated reports that it was generated.
func (e *Entry) KustomizationText() (text []byte, generated bool, err error) {
	k, generated, err := e.folderKustomization()
	if err != nil {
		return nil, false, err
	}
	e.Kustomization.setOver(k)
	text, err = sigsyaml.Marshal(k)
	return text, generated, err
}

// folderKustomization is the kustomization of the entry's folder, or the
// one Flux generates for a folder without one (generated).
func (e *Entry) folderKustomization() (k map[string]any, generated bool, err error) {
	k = map[string]any{}
	file, ok := kustomizationIn(e.Dir)
	if !ok {
		k["apiVersion"], k["kind"] = "kustomize.config.k8s.io/v1beta1", "Kustomization"
		k["resources"] = generatedResources(e.Dir)
		return k, true, nil
	}
	data, err := overlay.ReadFile(file)
	if err != nil {
		return nil, false, err
	}
	if err := sigsyaml.Unmarshal(data, &k); err != nil {
		return nil, false, err
	}
	if k == nil {
		k = map[string]any{}
	}
	return k, false, nil
}

// setOver sets the entry's settings over the kustomization k (namespace,
// name prefix and suffix) and adds them to it (patches, images by name,
// components, common labels and annotations).
func (s *Kustomization) setOver(k map[string]any) {
	if s.Namespace != "" {
		k["namespace"] = s.Namespace
	}
	if s.NamePrefix != "" {
		k["namePrefix"] = s.NamePrefix
	}
	if s.NameSuffix != "" {
		k["nameSuffix"] = s.NameSuffix
	}
	for _, p := range s.Patches {
		k["patches"] = append(list(k["patches"]), p)
	}
	for _, im := range s.Images {
		images := list(k["images"])
		i := slices.IndexFunc(images, func(x any) bool {
			m, _ := x.(map[string]any)
			return m != nil && m["name"] == im["name"]
		})
		if i >= 0 {
			images[i] = im
		} else {
			images = append(images, im)
		}
		k["images"] = images
	}
	for _, c := range s.Components {
		k["components"] = append(list(k["components"]), c)
	}
	if s.MetadataOnly {
		return
	}
	for field, add := range map[string]map[string]string{"commonLabels": s.Labels, "commonAnnotations": s.Annotations} {
		if len(add) == 0 {
			continue
		}
		m, _ := k[field].(map[string]any)
		if m == nil {
			m = map[string]any{}
		}
		for key, v := range add {
			m[key] = v
		}
		k[field] = m
	}
}

func list(v any) []any {
	l, _ := v.([]any)
	return l
}

func kustomizationIn(dir string) (string, bool) {
	for _, n := range []string{"kustomization.yaml", "kustomization.yml", "Kustomization"} {
		p := filepath.Join(dir, n)
		if fi, err := overlay.Stat(p); err == nil && fi.Mode().IsRegular() {
			return p, true
		}
	}
	return "", false
}

// generatedResources lists what Flux's generated kustomization holds: the
// .yaml and .yml files below dir, and the subfolders that hold a
// kustomization (not entered). Hidden folders are skipped: the source
// artifact Flux builds from leaves out .git and the like.
func generatedResources(dir string) []any {
	var out []any
	_ = overlay.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == dir {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		rel = "./" + filepath.ToSlash(rel)
		if d.IsDir() {
			if strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			if _, ok := kustomizationIn(p); ok {
				out = append(out, rel)
				return filepath.SkipDir
			}
			return nil
		}
		// Only regular files: kustomize would block reading a named pipe.
		if fi, err := overlay.Stat(p); err != nil || !fi.Mode().IsRegular() {
			return nil
		}
		if ext := filepath.Ext(p); ext == ".yaml" || ext == ".yml" {
			out = append(out, rel)
		}
		return nil
	})
	return out
}

// GeneratedReads lists the files (absolute) the kustomization Flux
// generates for dir reads directly, and the folders it uses as resources.
func GeneratedReads(dir string) (files, dirs []string) {
	for _, r := range generatedResources(dir) {
		p := filepath.Join(dir, filepath.FromSlash(r.(string)))
		if isDir(p) {
			dirs = append(dirs, p)
		} else {
			files = append(files, p)
		}
	}
	return files, dirs
}
