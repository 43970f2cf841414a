package source

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
)

// Verify checks that every file the lock pins exists in dir with the pinned
// sha256. The error lists every missing or differing file.
func Verify(dir string, l *Lock) error {
	missing, bad := check(dir, l)
	for _, name := range missing {
		bad = append(bad, fmt.Errorf("%s is missing (lock pins %s for %s@%s); pull the schemas again",
			filepath.Join(dir, name), l.Files[name], Package, l.Version))
	}
	return errors.Join(bad...)
}

// VerifyPresent checks the files of dir that the lock pins, and requires
// only those named in need: a schema folder given by hand may hold a subset
// of a release (its v1 files, say) beside the release's lock.
func VerifyPresent(dir string, l *Lock, need []string) error {
	missing, bad := check(dir, l)
	for _, name := range missing {
		if slices.Contains(need, name) {
			bad = append(bad, fmt.Errorf("%s is missing (lock pins %s for %s@%s)",
				filepath.Join(dir, name), l.Files[name], Package, l.Version))
		}
	}
	return errors.Join(bad...)
}

// check sorts the lock's files into missing ones and errors for the rest.
func check(dir string, l *Lock) (missing []string, bad []error) {
	for _, name := range slices.Sorted(maps.Keys(l.Files)) {
		path := filepath.Join(dir, name)
		data, err := os.ReadFile(path)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			missing = append(missing, name)
		case err != nil:
			bad = append(bad, err)
		case fileHash(data) != l.Files[name]:
			bad = append(bad, fmt.Errorf("%s has %s but %s pins %s (%s@%s); it was edited or comes from another release: delete it and pull again, or pull a new version to re-pin",
				path, fileHash(data), filepath.Join(dir, LockFile), l.Files[name], Package, l.Version))
		}
	}
	return missing, bad
}
