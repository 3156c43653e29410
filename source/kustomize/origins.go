package kustomize

import "sync"

// Origins holds the resource files that several builds of one run read (a
// base under dev, staging and prod overlays), parsed for positions once
// for all of them. A file is dropped when the last build that may read it
// is done, so memory follows the builds under way, not the repository.
// A nil *Origins shares nothing.
type Origins struct {
	mu    sync.Mutex
	files map[string]*sharedOrigin
}

type sharedOrigin struct {
	readers int // builds that may still read it
	once    sync.Once
	docs    []*originDoc
}

// NewOrigins shares the files that more than one build reads; readers
// counts, for each file (absolute path), the builds that read it.
func NewOrigins(readers map[string]int) *Origins {
	s := &Origins{files: map[string]*sharedOrigin{}}
	for file, n := range readers {
		if n > 1 {
			s.files[file] = &sharedOrigin{readers: n}
		}
	}
	return s
}

// docs returns the file's documents, parsed by the first build that asks;
// ok is false for a file that is not shared.
func (s *Origins) docs(file string) (docs []*originDoc, ok bool) {
	if s == nil {
		return nil, false
	}
	s.mu.Lock()
	f := s.files[file]
	s.mu.Unlock()
	if f == nil {
		return nil, false
	}
	f.once.Do(func() { f.docs = readDocs(file) })
	return f.docs, true
}

// Done says a build that reads files is done with them.
func (s *Origins) Done(files map[string]bool) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for file := range files {
		if f := s.files[file]; f != nil {
			if f.readers--; f.readers <= 0 {
				delete(s.files, file)
			}
		}
	}
}
