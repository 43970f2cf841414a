package main

import (
	"context"
	"errors"
	"os"
	"sync"

	"github.com/acpgen/acpgen/gen/acp"
	"github.com/acpgen/acpgen/runtime/roots"
)

// The client serves fs/read_text_file and fs/write_text_file inside each
// session's roots [cwd, ...additionalDirectories]: the RFD makes a client
// that mediates file access enforce the session's effective root set.
// runtime/roots resolves symlinks, so a link cannot lead out of a root; its
// ReadText and WriteText also bound a read (roots.DefaultMaxRead), refuse a
// directory, FIFO, device or socket without blocking on it, and take a
// trailing slash on a file for ENOTDIR.

// sessionRoots holds the root set of every session the client created.
type sessionRoots struct {
	mu   sync.Mutex
	sets map[acp.SessionID]*roots.Set
}

func (s *sessionRoots) add(id acp.SessionID, set *roots.Set) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.sets == nil {
		s.sets = map[acp.SessionID]*roots.Set{}
	}
	if old := s.sets[id]; old != nil {
		old.Close()
	}
	s.sets[id] = set
}

func (s *sessionRoots) of(id acp.SessionID) (*roots.Set, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if set := s.sets[id]; set != nil {
		return set, nil
	}
	return nil, acp.NewResourceNotFoundError(map[string]any{"sessionId": id})
}

// refused is the answer for a path the session may not reach, or a file
// that may not be read or written: a directory, FIFO, device or socket,
// text over the read bound.
func refused(path string, err error) error {
	if errors.Is(err, os.ErrNotExist) {
		return acp.NewResourceNotFoundError(map[string]any{"path": path})
	}
	return acp.NewInvalidParamsError(map[string]any{"path": path, "reason": err.Error()})
}

// FsReadTextFile returns the file's text, from line Line (1-based) for at
// most Limit lines when they are given, within roots.DefaultMaxRead bytes.
func (h *handler) FsReadTextFile(ctx context.Context, p *acp.ReadTextFileRequest) (*acp.ReadTextFileResponse, error) {
	set, err := h.roots.of(p.SessionID)
	if err != nil {
		return nil, err
	}
	var o roots.ReadOptions
	if p.Line != nil {
		o.Line = int(*p.Line)
	}
	if p.Limit != nil {
		if *p.Limit == 0 {
			return &acp.ReadTextFileResponse{}, nil
		}
		o.Limit = int(*p.Limit)
	}
	text, err := set.ReadText(ctx, p.Path, o)
	if err != nil {
		return nil, refused(p.Path, err)
	}
	return &acp.ReadTextFileResponse{Content: text}, nil
}

// FsWriteTextFile creates or replaces the file with the given text.
func (h *handler) FsWriteTextFile(ctx context.Context, p *acp.WriteTextFileRequest) (*acp.WriteTextFileResponse, error) {
	set, err := h.roots.of(p.SessionID)
	if err != nil {
		return nil, err
	}
	if err := set.WriteText(p.Path, p.Content, 0o644); err != nil {
		return nil, refused(p.Path, err)
	}
	return &acp.WriteTextFileResponse{}, nil
}
