package main

import (
	"context"
	"errors"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/acpgen/acpgen/gen/acp"
	"github.com/acpgen/acpgen/runtime/roots"
)

// The client serves fs/read_text_file and fs/write_text_file inside each
// session's roots [cwd, ...additionalDirectories]: the RFD makes a client
// that mediates file access enforce the session's effective root set.
// runtime/roots resolves symlinks, so a link cannot lead out of a root.

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

// refused is the answer for a path the session may not reach.
func refused(path string, err error) error {
	if errors.Is(err, os.ErrNotExist) {
		return acp.NewResourceNotFoundError(map[string]any{"path": path})
	}
	return acp.NewInvalidParamsError(map[string]any{"path": path, "reason": err.Error()})
}

// FsReadTextFile returns the file's text, from line Line (1-based) for at
// most Limit lines when they are given.
func (h *handler) FsReadTextFile(ctx context.Context, p *acp.ReadTextFileRequest) (*acp.ReadTextFileResponse, error) {
	set, err := h.roots.of(p.SessionID)
	if err != nil {
		return nil, err
	}
	f, err := set.Open(p.Path)
	if err != nil {
		return nil, refused(p.Path, err)
	}
	defer f.Close()
	data, err := io.ReadAll(f)
	if err != nil {
		return nil, refused(p.Path, err)
	}
	text := string(data)
	if p.Line != nil || p.Limit != nil {
		lines := strings.SplitAfter(text, "\n")
		from := 0
		if p.Line != nil && *p.Line > 0 {
			from = min(int(*p.Line)-1, len(lines))
		}
		to := len(lines)
		if p.Limit != nil {
			to = min(from+int(*p.Limit), len(lines))
		}
		text = strings.Join(lines[from:to], "")
	}
	return &acp.ReadTextFileResponse{Content: text}, nil
}

// FsWriteTextFile creates or replaces the file with the given text.
func (h *handler) FsWriteTextFile(ctx context.Context, p *acp.WriteTextFileRequest) (*acp.WriteTextFileResponse, error) {
	set, err := h.roots.of(p.SessionID)
	if err != nil {
		return nil, err
	}
	f, err := set.OpenFile(p.Path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, refused(p.Path, err)
	}
	if _, err := f.WriteString(p.Content); err != nil {
		f.Close()
		return nil, refused(p.Path, err)
	}
	return &acp.WriteTextFileResponse{}, f.Close()
}
