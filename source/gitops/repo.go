package gitops

import (
	"bufio"
	"bytes"
	"path/filepath"
	"strings"
	"sync"

	"github.com/webhooklint/webhooklint/internal/overlay"
)

// Repository is the repository being linted, as GitOps sources name it.
type Repository struct {
	// Root is the folder holding .git; empty when there is none.
	Root string
	// URLs are its remotes' URLs and the ones given (--repo-url),
	// normalized (normalizeURL).
	URLs []string

	// branch is the branch checked out, read on first use (Branch).
	branch     string
	branchOnce sync.Once
}

// Branch is the branch checked out; empty when HEAD is detached (a CI
// checkout) or there is no .git. HEAD is read only when a source names a
// branch of this repository: it is then an input of what is found, and a
// detached HEAD changes with every commit.
func (r *Repository) Branch() string {
	r.branchOnce.Do(func() {
		if r.Root != "" {
			r.branch = headBranch(r.Root)
		}
	})
	return r.branch
}

// OpenRepository describes the repository whose root is root (the folder
// with .git, or "" when there is none), with its remotes read from the Git
// configuration and the URLs given.
func OpenRepository(root string, given []string) *Repository {
	r := &Repository{Root: root}
	for _, u := range given {
		r.URLs = append(r.URLs, normalizeURL(u))
	}
	if root != "" {
		for _, u := range remoteURLs(root) {
			r.URLs = append(r.URLs, normalizeURL(u))
		}
	}
	return r
}

// Is reports whether a source URL is this repository.
func (r *Repository) Is(url string) bool {
	n := normalizeURL(url)
	for _, u := range r.URLs {
		if u == n {
			return true
		}
	}
	return false
}

// normalizeURL reduces the spellings of one Git repository's URL to one:
// https://github.com/a/b.git, ssh://git@github.com/a/b and
// git@github.com:a/b are all github.com/a/b.
func normalizeURL(u string) string {
	u = strings.TrimSpace(u)
	if i := strings.Index(u, "://"); i >= 0 {
		u = u[i+3:]
	} else if at, rest, ok := strings.Cut(u, "@"); ok && !strings.Contains(at, "/") {
		// scp-like: git@host:path
		u = strings.Replace(rest, ":", "/", 1)
	}
	if i := strings.IndexByte(u, '@'); i >= 0 && i < strings.IndexByte(u+"/", '/') {
		u = u[i+1:] // user@ before the host
	}
	u = strings.TrimSuffix(strings.TrimSuffix(u, "/"), ".git")
	host, path, _ := strings.Cut(u, "/")
	if h, port, ok := strings.Cut(host, ":"); ok && (port == "22" || port == "443") {
		host = h
	}
	return strings.ToLower(host) + "/" + path
}

// remoteURLs reads the remotes' URLs from the repository's Git
// configuration. A worktree's .git is a file naming its git folder, whose
// commondir holds the configuration. They are read through overlay, as
// every input is: a cached result that depends on whether a source is
// this repository is invalidated when a remote's URL changes.
func remoteURLs(root string) []string {
	gitDir := worktreeGitDir(root)
	if c, err := overlay.ReadFile(filepath.Join(gitDir, "commondir")); err == nil {
		common := strings.TrimSpace(string(c))
		if !filepath.IsAbs(common) {
			common = filepath.Join(gitDir, common)
		}
		gitDir = common
	}
	data, err := overlay.ReadFile(filepath.Join(gitDir, "config"))
	if err != nil {
		return nil
	}
	var out []string
	inRemote := false
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "[") {
			inRemote = strings.HasPrefix(line, "[remote ")
			continue
		}
		if k, v, ok := strings.Cut(line, "="); ok && inRemote && strings.TrimSpace(k) == "url" {
			out = append(out, strings.TrimSpace(v))
		}
	}
	return out
}

// worktreeGitDir is the git folder of the checkout at root: .git, or the
// folder a worktree's .git file names.
func worktreeGitDir(root string) string {
	gitDir := filepath.Join(root, ".git")
	if data, err := overlay.ReadFile(gitDir); err == nil {
		if d, ok := strings.CutPrefix(strings.TrimSpace(string(data)), "gitdir:"); ok {
			gitDir = strings.TrimSpace(d)
			if !filepath.IsAbs(gitDir) {
				gitDir = filepath.Join(root, gitDir)
			}
		}
	}
	return gitDir
}

// headBranch is the branch HEAD names in the checkout at root, or "".
func headBranch(root string) string {
	data, err := overlay.ReadFile(filepath.Join(worktreeGitDir(root), "HEAD"))
	if err != nil {
		return ""
	}
	b, _ := strings.CutPrefix(strings.TrimSpace(string(data)), "ref: refs/heads/")
	if b == strings.TrimSpace(string(data)) {
		return "" // detached: a commit
	}
	return b
}
