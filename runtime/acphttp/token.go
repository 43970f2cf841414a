package acphttp

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
)

// TokenEnv names the environment variable LoadToken reads a bearer token
// from. Unlike the command line, which every user of the machine can read
// (ps, /proc/PID/cmdline), a process's environment is readable by its own
// user only.
const TokenEnv = "ACP_TOKEN"

// maxTokenFile bounds what LoadToken reads of a token file.
const maxTokenFile = 64 << 10

// LoadToken returns the bearer token a program was given: flagValue (its
// -token flag) if not empty, else the content of the file named by file
// (its -token-file flag) without surrounding white space, else the
// TokenEnv environment variable; "" when none is set. Both flags at once,
// an unreadable file, and a file that holds no token or more than one line
// are errors.
func LoadToken(flagValue, file string) (string, error) {
	switch {
	case flagValue != "" && file != "":
		return "", errors.New("give -token or -token-file, not both")
	case flagValue != "":
		return flagValue, nil
	case file == "":
		return os.Getenv(TokenEnv), nil
	}
	f, err := os.Open(file)
	if err != nil {
		return "", fmt.Errorf("-token-file: %w", err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxTokenFile+1))
	if err != nil {
		return "", fmt.Errorf("-token-file: %w", err)
	}
	tok := strings.TrimSpace(string(b))
	switch {
	case len(b) > maxTokenFile:
		return "", fmt.Errorf("-token-file %s: larger than %d bytes", file, maxTokenFile)
	case tok == "":
		return "", fmt.Errorf("-token-file %s: no token in it", file)
	case strings.ContainsAny(tok, "\r\n"):
		return "", fmt.Errorf("-token-file %s: more than one line", file)
	}
	return tok, nil
}
