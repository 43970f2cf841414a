package corpus

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
)

// Message is one entry of the hand-written corpus
// (testdata/corpus/{stable,unstable}/NNN-name.json): a whole JSON-RPC frame
// and the $defs name its payload must decode as.
type Message struct {
	File    string
	Def     string
	Frame   []byte // the whole JSON-RPC message, as written
	Member  string // where the payload sits: "params", "result" or "error"
	Payload []byte // the payload's exact text
}

// Invalid is one entry of testdata/corpus/invalid: an instance that must
// fail validation against Def, with a fragment the validation error has to
// mention (usually the offending member's name).
type Invalid struct {
	File          string
	Def           string
	JSON          []byte
	ErrorContains string
	// Stage says what must reject it: "decode" (the default: the shape is
	// wrong) or "validate" (well-shaped, but breaks a rule Validate enforces).
	Stage string
}

// LoadMessages reads every *.json entry of dir in name order. Each file is
// {"def": "<$defs name>", "message": <JSON-RPC frame>}; the frame carries
// exactly one of params, result or error.
func LoadMessages(dir string) ([]Message, error) {
	files, err := jsonFiles(dir)
	if err != nil {
		return nil, err
	}
	var out []Message
	for _, f := range files {
		var entry struct {
			Def     string          `json:"def"`
			Message json.RawMessage `json:"message"`
		}
		if err := readStrict(f, &entry); err != nil {
			return nil, err
		}
		if entry.Def == "" || entry.Message == nil {
			return nil, fmt.Errorf("%s: needs def and message", f)
		}
		var frame map[string]json.RawMessage
		if err := json.Unmarshal(entry.Message, &frame); err != nil {
			return nil, fmt.Errorf("%s: message: %w", f, err)
		}
		if string(frame["jsonrpc"]) != `"2.0"` {
			return nil, fmt.Errorf("%s: message is not a JSON-RPC 2.0 frame", f)
		}
		m := Message{File: f, Def: entry.Def, Frame: entry.Message}
		for _, member := range []string{"params", "result", "error"} {
			if p, ok := frame[member]; ok {
				if m.Member != "" {
					return nil, fmt.Errorf("%s: message has both %s and %s", f, m.Member, member)
				}
				m.Member, m.Payload = member, p
			}
		}
		if m.Member == "" {
			return nil, fmt.Errorf("%s: message has no params, result or error", f)
		}
		out = append(out, m)
	}
	return out, nil
}

// LoadInvalid reads every *.json entry of dir in name order. Each file is
// {"def": ..., "json": <instance>, "error_contains": "..."}.
func LoadInvalid(dir string) ([]Invalid, error) {
	files, err := jsonFiles(dir)
	if err != nil {
		return nil, err
	}
	var out []Invalid
	for _, f := range files {
		var entry struct {
			Def           string          `json:"def"`
			JSON          json.RawMessage `json:"json"`
			ErrorContains string          `json:"error_contains"`
			Stage         string          `json:"stage"`
		}
		if err := readStrict(f, &entry); err != nil {
			return nil, err
		}
		if entry.Def == "" || entry.JSON == nil || entry.ErrorContains == "" {
			return nil, fmt.Errorf("%s: needs def, json and error_contains", f)
		}
		switch entry.Stage {
		case "":
			entry.Stage = "decode"
		case "decode", "validate":
		default:
			return nil, fmt.Errorf("%s: stage must be decode or validate, not %q", f, entry.Stage)
		}
		out = append(out, Invalid{File: f, Def: entry.Def, JSON: entry.JSON, ErrorContains: entry.ErrorContains, Stage: entry.Stage})
	}
	return out, nil
}

func jsonFiles(dir string) ([]string, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("corpus: no *.json files in %s", dir)
	}
	sort.Strings(files)
	return files, nil
}

// readStrict decodes one entry file, refusing unknown top-level keys so a
// misspelt "def" or "message" cannot silently skip a case.
func readStrict(file string, into any) error {
	data, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(into); err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return errors.New(file + ": trailing data")
	}
	return nil
}
