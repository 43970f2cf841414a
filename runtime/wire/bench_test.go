package wire

import (
	"encoding/json"
	"testing"
)

// acpMessage is a ~1 KB Agent Client Protocol notification, pretty-printed
// in places, with escapes, numbers of several shapes and nesting.
const acpMessage = `{
  "jsonrpc": "2.0",
  "method": "session/update",
  "params": {
    "sessionId": "sess_01J9ZQ4X8M2K7V3N5P6R",
    "update": {
      "sessionUpdate": "tool_call_update",
      "toolCallId": "call_7f3a9c2e41b0",
      "status": "completed",
      "title": "Reading file \"src/main.go\"",
      "kind": "read",
      "locations": [{"path": "/home/user/project/src/main.go", "line": 42}],
      "rawInput": {"path": "/home/user/project/src/main.go", "offset": 0, "limit": 2000},
      "content": [
        {
          "type": "content",
          "content": {
            "type": "text",
            "text": "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(\"h\u00e9llo, w\u00f6rld\")\n}\n",
            "annotations": {"audience": ["user", "assistant"], "priority": 0.75, "lastModified": "2025-01-02T03:04:05Z"}
          }
        },
        {
          "type": "diff",
          "path": "/home/user/project/src/main.go",
          "oldText": null,
          "newText": "// Copyright 2025 The Authors. All rights reserved.\n"
        }
      ],
      "_meta": {"elapsedMs": 12.5, "tokens": 1834, "cached": true, "ratio": -1.5e-3, "tags": []}
    }
  }
}`

// walkKeys visits every member and element of the value at d with the
// structural API, reading scalars without keeping them.
func walkKeys(d *Decoder) error {
	switch d.Peek() {
	case KindObject:
		if err := d.BeginObject(); err != nil {
			return err
		}
		for {
			_, ok, err := d.NextKey()
			if err != nil || !ok {
				return err
			}
			if err := walkKeys(d); err != nil {
				return err
			}
		}
	case KindArray:
		if err := d.BeginArray(); err != nil {
			return err
		}
		for {
			ok, err := d.NextItem()
			if err != nil || !ok {
				return err
			}
			if err := walkKeys(d); err != nil {
				return err
			}
		}
	case KindString:
		_, err := d.ReadStringBytes()
		return err
	}
	return d.Skip()
}

func BenchmarkSkip(b *testing.B) {
	msg := []byte(acpMessage)
	d := NewDecoder(msg, Strict)
	b.SetBytes(int64(len(msg)))
	b.ReportAllocs()
	for b.Loop() {
		d.Reset(msg, Strict)
		if err := d.Skip(); err != nil {
			b.Fatal(err)
		}
		if err := d.Finish(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkNextKey(b *testing.B) {
	msg := []byte(acpMessage)
	d := NewDecoder(msg, Strict)
	b.SetBytes(int64(len(msg)))
	b.ReportAllocs()
	for b.Loop() {
		d.Reset(msg, Strict)
		if err := walkKeys(d); err != nil {
			b.Fatal(err)
		}
		if err := d.Finish(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkScanKey(b *testing.B) {
	msg := []byte(acpMessage)
	d := NewDecoder(msg, Strict)
	b.SetBytes(int64(len(msg)))
	b.ReportAllocs()
	for b.Loop() {
		d.Reset(msg, Strict)
		if _, _, found, err := d.ScanKey("params"); err != nil || !found {
			b.Fatal(found, err)
		}
	}
}

// BenchmarkStdValid is a reference point for BenchmarkSkip.
func BenchmarkStdValid(b *testing.B) {
	msg := []byte(acpMessage)
	b.SetBytes(int64(len(msg)))
	b.ReportAllocs()
	for b.Loop() {
		if !json.Valid(msg) {
			b.Fatal("invalid")
		}
	}
}

func BenchmarkAppendString(b *testing.B) {
	s := "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(\"héllo, wörld\")\n}\n"
	buf := make([]byte, 0, 256)
	b.ReportAllocs()
	for b.Loop() {
		buf = AppendString(buf[:0], s)
	}
}

func BenchmarkReadInts(b *testing.B) {
	msg := []byte(`[0, 1, -42, 1834, 9223372036854775807, 65535, 1e3]`)
	d := NewDecoder(msg, Strict)
	b.ReportAllocs()
	for b.Loop() {
		d.Reset(msg, Strict)
		d.BeginArray()
		for {
			ok, err := d.NextItem()
			if err != nil {
				b.Fatal(err)
			}
			if !ok {
				break
			}
			if _, err := d.ReadInt64(); err != nil {
				b.Fatal(err)
			}
		}
	}
}
