// Package source pulls the upstream ACP JSON Schemas out of the npm package
// that publishes them, checks them against a committed lock, and writes them
// into the (git-ignored) schema folder.
//
// Upstream schema text is never committed: only the lock is, so every build
// regenerates from bytes that are proven identical to the pinned release.
package source

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/acpgen/acpgen/internal/atomicfile"
)

// Package is the npm package that publishes the ACP schemas.
const Package = "@agentclientprotocol/sdk"

// Our names for the schema files in the schema folder.
const (
	StableFile     = "schema.json"             // v1 stable
	UnstableFile   = "schema.unstable.json"    // v1 unstable
	V2StableFile   = "schema.v2.json"          // v2 draft, stable part
	V2UnstableFile = "schema.v2.unstable.json" // v2 draft, unstable
	LockFile       = "lock.json"
)

// knownFiles are the only names a lock may list. Lock entries become paths in
// the schema folder, so an open set would let a tampered lock write anywhere.
var knownFiles = []string{StableFile, UnstableFile, V2StableFile, V2UnstableFile}

// Lock pins one release of Package and the exact bytes of the files we use.
type Lock struct {
	Package   string            `json:"package"`
	Version   string            `json:"version"`
	Integrity string            `json:"integrity"` // npm's sha512 SRI string of the tarball
	Files     map[string]string `json:"files"`     // our file name -> "sha256:<hex>"
}

var (
	// versionRE admits exact versions and dist-tags but nothing npm could read
	// as a path, URL or flag.
	versionRE   = regexp.MustCompile(`^[0-9A-Za-z][0-9A-Za-z._+-]*$`)
	fileHashRE  = regexp.MustCompile(`^sha256:[0-9a-f]{64}$`)
	integrityRE = regexp.MustCompile(`^sha512-[A-Za-z0-9+/]{86}==$`)
)

// ReadLock reads and validates a lock file.
func ReadLock(path string) (*Lock, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var l Lock
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&l); err != nil {
		return nil, fmt.Errorf("%s: not a valid lock: %w", path, err)
	}
	if err := l.validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &l, nil
}

func (l *Lock) validate() error {
	var problems []string
	if l.Package != Package {
		problems = append(problems, fmt.Sprintf("package is %q, want %q", l.Package, Package))
	}
	if !versionRE.MatchString(l.Version) {
		problems = append(problems, fmt.Sprintf("version %q is not a plain npm version", l.Version))
	}
	if !integrityRE.MatchString(l.Integrity) {
		problems = append(problems, fmt.Sprintf("integrity %q is not a sha512 SRI string", l.Integrity))
	}
	if len(l.Files) == 0 {
		problems = append(problems, "files is empty")
	}
	for _, name := range slices.Sorted(maps.Keys(l.Files)) {
		if !slices.Contains(knownFiles, name) {
			problems = append(problems, fmt.Sprintf("files lists %q; only %s are allowed", name, strings.Join(knownFiles, ", ")))
		}
		if !fileHashRE.MatchString(l.Files[name]) {
			problems = append(problems, fmt.Sprintf("files[%q] is %q, want \"sha256:<64 lower-case hex digits>\"", name, l.Files[name]))
		}
	}
	if len(problems) > 0 {
		return fmt.Errorf("invalid lock: %s; fix it by hand or re-create it by pulling with an explicit version", strings.Join(problems, "; "))
	}
	return nil
}

// Write stores the lock deterministically and atomically, so a crash never
// leaves a half-written lock behind and rewrites of the same lock are no-ops
// in git.
func (l *Lock) Write(path string) error {
	data, err := l.Marshal()
	if err != nil {
		return fmt.Errorf("refusing to write %s: %w", path, err)
	}
	return writeAtomic(path, data)
}

// Marshal is the lock file's bytes: the same lock always gives the same bytes.
func (l *Lock) Marshal() ([]byte, error) {
	if err := l.validate(); err != nil {
		return nil, err
	}
	// encoding/json emits struct fields in declaration order and map keys
	// sorted, which is exactly the stable form we want.
	data, err := json.MarshalIndent(l, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(data, '\n'), nil
}

// writeAtomic replaces path with data through a temporary file beside it, so
// readers see either the old or the new content, never a mix.
func writeAtomic(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return atomicfile.Write(path, data, 0o644)
}
