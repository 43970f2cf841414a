package inspect

import (
	"fmt"
	"io/fs"
	"os"
)

// CreateTrace opens path for a trace and empties it: a new file readable by
// its owner only (a trace holds the session's messages), or an existing
// regular file, truncated. The path's last element is never followed when
// it is a symbolic link (O_NOFOLLOW where the platform has it), and
// anything but a regular file is refused before it is truncated, so that
// a link planted at a trace path cannot make the inspector empty its
// target, and a FIFO cannot block it.
func CreateTrace(path string) (*os.File, error) {
	if fi, err := os.Lstat(path); err == nil {
		if err := regular(path, fi); err != nil {
			return nil, err
		}
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|openNoFollow, 0o600)
	if err != nil {
		if isLinkLoop(err) {
			return nil, fmt.Errorf("trace %s: a symbolic link; give the path of a regular file", path)
		}
		return nil, fmt.Errorf("trace: %w", err)
	}
	fi, err := f.Stat()
	if err == nil {
		err = regular(path, fi)
	}
	if err == nil {
		err = f.Truncate(0)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// regular refuses what is not a regular file.
func regular(path string, fi fs.FileInfo) error {
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		return fmt.Errorf("trace %s: a symbolic link; give the path of a regular file", path)
	case !fi.Mode().IsRegular():
		return fmt.Errorf("trace %s: not a regular file (%s)", path, fi.Mode().Type())
	}
	return nil
}
