package roots

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
)

// DefaultMaxRead bounds the text ReadText returns when ReadOptions.MaxBytes
// is not set. Sent as a JSON string, a control character takes 6 bytes, so
// the answer to a read of 8 MiB stays within the 64 MiB frame bound of
// runtime/jsonrpc (DefaultMaxFrame) whatever the file holds.
const DefaultMaxRead = 8 << 20

// Errors wrapped by ReadText and WriteText.
var (
	// ErrNotRegular: the path names a directory, FIFO, device or socket,
	// which are refused without being read or written (a FIFO with no
	// writer would block the read forever).
	ErrNotRegular = errors.New("not a regular file")
	// ErrTooLarge: the text to return is over the read bound; a read of
	// fewer lines (ReadOptions.Line and Limit) may fit.
	ErrTooLarge = errors.New("text is over the read bound")
)

// ReadOptions select the text ReadText returns.
type ReadOptions struct {
	// Line is the 1-based line to start at; 0 starts at the first line.
	Line int
	// Limit is the most lines to return; 0 returns every line to the end.
	Limit int
	// MaxBytes bounds the text returned; 0 means DefaultMaxRead.
	MaxBytes int
}

// readChunk is the buffer lines are read through: a line is read, or
// skipped, this much at a time, never held whole unless it is returned.
const readChunk = 64 << 10

// ReadText returns the text of the regular file at path, if it is in scope:
// from line o.Line, at most o.Limit lines, each with its line terminator.
// A line past the end yields "". Lines before o.Line are skipped without
// being held; text over o.MaxBytes is an error wrapping ErrTooLarge, given
// as soon as the file's size or what was read shows it. Anything but a
// regular file is refused (ErrNotRegular) without blocking, and the read
// stops when ctx ends.
func (s *Set) ReadText(ctx context.Context, path string, o ReadOptions) (string, error) {
	bound := o.MaxBytes
	if bound <= 0 {
		bound = DefaultMaxRead
	}
	f, size, err := s.openRegular(path, os.O_RDONLY, 0)
	if err != nil {
		return "", err
	}
	defer f.Close()
	if o.Line <= 1 && o.Limit <= 0 && size > int64(bound) {
		return "", tooLarge(path, bound)
	}
	br := bufio.NewReaderSize(f, readChunk)
	for n := 1; n < o.Line; n++ {
		if err := copyLine(ctx, br, nil); err == io.EOF {
			return "", nil
		} else if err != nil {
			return "", fmt.Errorf("roots: %s: %w", path, err)
		}
	}
	w := &bounded{left: bound}
	for n := 0; o.Limit <= 0 || n < o.Limit; n++ {
		err := copyLine(ctx, br, w)
		if err == io.EOF {
			break
		}
		if errors.Is(err, ErrTooLarge) {
			return "", tooLarge(path, bound)
		}
		if err != nil {
			return "", fmt.Errorf("roots: %s: %w", path, err)
		}
	}
	return w.String(), nil
}

func tooLarge(path string, bound int) error {
	return fmt.Errorf("roots: %s: %w (%d bytes)", path, ErrTooLarge, bound)
}

// copyLine reads one line, its terminator included, into w (nil: dropped),
// a buffer at a time. It returns io.EOF only when there was nothing left to
// read.
func copyLine(ctx context.Context, br *bufio.Reader, w io.Writer) error {
	for first := true; ; first = false {
		if err := ctx.Err(); err != nil {
			return err
		}
		chunk, err := br.ReadSlice('\n')
		if w != nil && len(chunk) > 0 {
			if _, werr := w.Write(chunk); werr != nil {
				return werr
			}
		}
		switch {
		case err == bufio.ErrBufferFull:
			continue
		case err == io.EOF && (!first || len(chunk) > 0):
			return nil // a last line without a terminator
		default:
			return err
		}
	}
}

// bounded collects what is written, up to left bytes, in blocks assembled
// once at the end: reading n bytes allocates about 2n, where growing one
// buffer would allocate several times n.
type bounded struct {
	parts [][]byte
	size  int
	left  int
}

func (w *bounded) Write(p []byte) (int, error) {
	if len(p) > w.left {
		return 0, ErrTooLarge
	}
	n := len(p)
	w.left -= n
	w.size += n
	for len(p) > 0 {
		if n := len(w.parts); n == 0 || len(w.parts[n-1]) == cap(w.parts[n-1]) {
			w.parts = append(w.parts, make([]byte, 0, readChunk))
		}
		last := &w.parts[len(w.parts)-1]
		k := min(len(p), cap(*last)-len(*last))
		*last = append(*last, p[:k]...)
		p = p[k:]
	}
	return n, nil
}

func (w *bounded) String() string {
	var b strings.Builder
	b.Grow(w.size)
	for i, p := range w.parts {
		b.Write(p)
		w.parts[i] = nil
	}
	return b.String()
}

// WriteText creates or replaces the regular file at path, if it is in
// scope, with text. Anything but a regular file is refused (ErrNotRegular)
// before it is written or truncated.
func (s *Set) WriteText(path, text string, perm fs.FileMode) error {
	f, _, err := s.openRegular(path, os.O_WRONLY|os.O_CREATE, perm)
	if err != nil {
		return err
	}
	err = f.Truncate(0)
	if err == nil {
		_, err = f.WriteString(text)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("roots: %s: %w", path, err)
	}
	return nil
}

// openRegular opens path in scope when it is a regular file (or, with
// os.O_CREATE, does not exist yet) and returns its size. What exists and is
// not a regular file is refused before the open, since opening a device can
// act on it; the open itself does not block (a FIFO), and the opened file
// is checked again, so a swap between the two checks is refused too.
func (s *Set) openRegular(path string, flag int, perm fs.FileMode) (*os.File, int64, error) {
	root, rel, err := s.at(path)
	if err != nil {
		return nil, 0, err
	}
	if fi, err := root.Lstat(rel); err == nil && !fi.Mode().IsRegular() {
		return nil, 0, notRegular(path, fi.Mode())
	}
	return openChecked(root, rel, path, flag, perm)
}

// openChecked opens rel in root without blocking and refuses what it opened
// unless it is a regular file; path names it in errors.
func openChecked(root *os.Root, rel, path string, flag int, perm fs.FileMode) (*os.File, int64, error) {
	f, err := root.OpenFile(rel, flag|openNoBlock, perm)
	if err != nil {
		return nil, 0, fmt.Errorf("roots: %w", err)
	}
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = notRegular(path, fi.Mode())
	}
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	return f, fi.Size(), nil
}

func notRegular(path string, mode fs.FileMode) error {
	kind := "not a file"
	switch t := mode.Type(); {
	case t&fs.ModeDir != 0:
		kind = "a directory"
	case t&fs.ModeNamedPipe != 0:
		kind = "a FIFO"
	case t&fs.ModeSocket != 0:
		kind = "a socket"
	case t&fs.ModeDevice != 0:
		kind = "a device"
	case t&fs.ModeSymlink != 0:
		kind = "a symlink"
	}
	return fmt.Errorf("roots: %s: %w: %s", path, ErrNotRegular, kind)
}
