package atomicfile

import "os"

// Write writes path in place: Windows cannot replace an open file
// atomically, and renameio does not build there.
func Write(path string, data []byte, perm os.FileMode) error {
	return os.WriteFile(path, data, perm)
}
