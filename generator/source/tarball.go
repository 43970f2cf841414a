package source

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// Tarball entries we take, and the name each gets in the schema folder.
// Releases 2.x ship v1 schemas under schema/v1/; releases up to 1.9 ship a
// single schema/schema.json which is the v1 unstable schema. The v2 draft
// lives under schema/v2/ in either layout (1.3 to 1.9 ship only its
// unstable file).
var (
	v2Entries = map[string]string{
		"package/schema/v2/schema.json":          V2StableFile,
		"package/schema/v2/schema.unstable.json": V2UnstableFile,
	}
	v1Layout = map[string]string{
		"package/schema/v1/schema.json":          StableFile,
		"package/schema/v1/schema.unstable.json": UnstableFile,
	}
	oldLayout = map[string]string{
		"package/schema/schema.json": UnstableFile,
	}
)

const (
	manifestEntry = "package/package.json"
	// Caps against decompression bombs: the real schemas are well under 1 MiB
	// and the whole unpacked package under 10 MiB.
	maxEntrySize    = 32 << 20
	maxUnpackedSize = 1 << 30
)

// extracted is what we take from a tarball: file contents by our name.
type extracted map[string][]byte

// extractSchemas reads a gzipped npm tarball from memory and returns the
// schema files in it, keyed by our file names. It never touches the disk:
// output names come from the layout tables, never from entry names, so
// traversal entries ("../x", "/abs") simply match nothing and are skipped.
// It also checks that the package manifest names pkg at version.
func extractSchemas(tgz []byte, origin, version string) (extracted, error) {
	zr, err := gzip.NewReader(bytes.NewReader(tgz))
	if err != nil {
		return nil, fmt.Errorf("%s: not a gzip tarball: %w", origin, err)
	}
	tr := tar.NewReader(io.LimitReader(zr, maxUnpackedSize))
	found := map[string][]byte{} // entry name -> content
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if errors.Is(err, tar.ErrInsecurePath) {
			// Only reported under GODEBUG=tarinsecurepath=0; such names
			// are never ours, so skip them like any other foreign entry.
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("%s: corrupt tarball: %w", origin, err)
		}
		// Symlinks, hard links, devices and directories are never schema
		// files; following them could read or write outside the package.
		if hdr.Typeflag != tar.TypeReg {
			continue
		}
		name := strings.TrimPrefix(hdr.Name, "./")
		_, inV1 := v1Layout[name]
		_, inOld := oldLayout[name]
		_, inV2 := v2Entries[name]
		if !inV1 && !inOld && !inV2 && name != manifestEntry {
			continue
		}
		if _, dup := found[name]; dup {
			// tar lets a later entry shadow an earlier one; refuse rather
			// than guess which one npm would have used.
			return nil, fmt.Errorf("%s: tarball holds %s twice; refusing an ambiguous package", origin, name)
		}
		if hdr.Size > maxEntrySize {
			return nil, fmt.Errorf("%s: %s is %d bytes, over the %d byte limit", origin, name, hdr.Size, maxEntrySize)
		}
		data, err := io.ReadAll(io.LimitReader(tr, maxEntrySize+1))
		if err != nil {
			return nil, fmt.Errorf("%s: reading %s: %w", origin, name, err)
		}
		found[name] = data
	}

	if err := checkManifest(found[manifestEntry], origin, version); err != nil {
		return nil, err
	}

	// Prefer the v1 layout whenever any of its entries exist, so a release
	// carrying both layouts resolves the same way as the version table.
	layout := oldLayout
	for entry := range v1Layout {
		if _, ok := found[entry]; ok {
			layout = v1Layout
		}
	}
	out := extracted{}
	for _, entries := range []map[string]string{layout, v2Entries} {
		for entry, ours := range entries {
			if data, ok := found[entry]; ok {
				out[ours] = data
			}
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no schema files in the tarball (looked for %s, %s and %s); is this really %s?",
			origin, "package/schema/v1/schema.json", "package/schema/v1/schema.unstable.json", "package/schema/schema.json", Package)
	}
	return out, nil
}

// checkManifest confirms the tarball is the package and version we asked for,
// which matters when a URL, not npm, chose the bytes.
func checkManifest(data []byte, origin, version string) error {
	if data == nil {
		return fmt.Errorf("%s: tarball has no %s; is this an npm package tarball?", origin, manifestEntry)
	}
	var m struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	}
	if err := json.Unmarshal(data, &m); err != nil {
		return fmt.Errorf("%s: %s: %w", origin, manifestEntry, err)
	}
	if m.Name != Package {
		return fmt.Errorf("%s: tarball is package %q, want %q", origin, m.Name, Package)
	}
	if version != "" && m.Version != version {
		return fmt.Errorf("%s: tarball is version %q, want %q; pass the matching version", origin, m.Version, version)
	}
	return nil
}

// sri returns npm's Subresource Integrity string for data.
func sri(data []byte) string {
	sum := sha512.Sum512(data)
	return "sha512-" + base64.StdEncoding.EncodeToString(sum[:])
}

// sriMatches reports whether an SRI string (possibly listing several hashes)
// contains want.
func sriMatches(sriList, want string) bool {
	for _, tok := range strings.Fields(sriList) {
		// An SRI token may carry "?options"; the hash is before them.
		tok, _, _ = strings.Cut(tok, "?")
		if tok == want {
			return true
		}
	}
	return false
}

// fileHash returns the lock's form of a file's hash.
func fileHash(data []byte) string {
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:])
}
