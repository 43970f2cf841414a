package conform

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/acpgen/acpgen/generator/config"
	"github.com/acpgen/acpgen/internal/schemacheck"
)

// versionSchemas holds, per protocol version, the validator of the release's
// schema file for that version (nil when the release ships none), built on
// first use: an agent may negotiate another version than the profile's
// (65535 answered with 2), and its frames then follow that version's schema.
type versionSchemas struct {
	mu  sync.Mutex
	dir string // the folder of the profile's schema file
	by  map[int]*schemacheck.Validator
}

// versionChannels are the channels whose schema defines each protocol
// version's messages.
var versionChannels = []string{"stable", "v2"}

func (p *Profile) forVersion(v int) *schemacheck.Validator {
	if v == p.Protocol {
		return p.ref
	}
	s := &p.versions
	s.mu.Lock()
	defer s.mu.Unlock()
	if ref, ok := s.by[v]; ok {
		return ref
	}
	if s.by == nil {
		s.by = map[int]*schemacheck.Validator{}
	}
	s.by[v] = nil
	for _, name := range versionChannels {
		ch, _ := config.DefaultChannel(name)
		if ch.Protocol != v || s.dir == "" {
			continue
		}
		b, err := os.ReadFile(filepath.Join(s.dir, ch.SchemaFile))
		if err != nil {
			continue
		}
		if ref, err := schemacheck.New(b); err == nil {
			s.by[v] = ref
		}
	}
	return s.by[v]
}

// negotiate records the protocolVersion an initialize result of proc names.
func (l *frameLog) negotiate(proc string, result json.RawMessage) {
	var res struct {
		ProtocolVersion *int `json:"protocolVersion"`
	}
	if json.Unmarshal(result, &res) != nil || res.ProtocolVersion == nil {
		return
	}
	l.mu.Lock()
	if l.versions == nil {
		l.versions = map[string]int{}
	}
	l.versions[proc] = *res.ProtocolVersion
	l.mu.Unlock()
}

// versionOf is the protocol version proc negotiated (the profile's until
// its initialize is answered).
func (l *frameLog) versionOf(proc string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	if v, ok := l.versions[proc]; ok {
		return v
	}
	return l.p.Protocol
}

// schemaOf returns the validator of proc's negotiated version and a suffix
// naming that version in frame kinds; nil when this release has no schema
// of it, after recording the mismatch once instead of schema failures.
func (l *frameLog) schemaOf(proc string) (*schemacheck.Validator, string) {
	v := l.versionOf(proc)
	if v == l.p.Protocol {
		return l.p.ref, ""
	}
	if ref := l.p.forVersion(v); ref != nil {
		return ref, fmt.Sprintf(" (protocol %d)", v)
	}
	kind := fmt.Sprintf("%s %d", mismatchKind, v)
	l.mu.Lock()
	seen := l.kinds[kind] != nil
	l.mu.Unlock()
	if !seen {
		l.add(kind, "", fmt.Sprintf("protocolVersion %d negotiated: this release has no schema of it, so that connection's frames are not validated", v))
	}
	return nil, ""
}

// mismatchKind starts the frame kind of a negotiated version without a
// schema: an informational case, not a schema failure.
const mismatchKind = "negotiated protocolVersion"
