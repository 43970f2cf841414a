// Package proxychain names the Proxy Chains methods in the two dialects
// found on the wire: the schema's (proxy/initialize, proxy/successor), which
// the TypeScript SDK uses too, and the Rust SDK's and its conductor's
// (_proxy/initialize, _proxy/successor). The two carry the same params and
// results; only the names differ. acpgen's proxy runtime, conductor,
// inspect and conform read both and answer in the one the peer used.
package proxychain

import "strings"

// Dialect is a naming of the Proxy Chains methods.
type Dialect uint8

const (
	// Schema is the schema's naming: proxy/initialize, proxy/successor.
	Schema Dialect = iota
	// Rust is the Rust SDK's naming: _proxy/initialize, _proxy/successor.
	Rust
)

// Method is a Proxy Chains method, whatever its dialect.
type Method uint8

const (
	// None is a method that is not a Proxy Chains method.
	None Method = iota
	// Initialize is proxy/initialize (_proxy/initialize).
	Initialize
	// Successor is proxy/successor (_proxy/successor).
	Successor
)

// The wire names, by dialect.
const (
	SchemaInitialize = "proxy/initialize"
	SchemaSuccessor  = "proxy/successor"
	RustInitialize   = "_proxy/initialize"
	RustSuccessor    = "_proxy/successor"
)

// Name is m's wire name in d; "" for None.
func (d Dialect) Name(m Method) string {
	switch {
	case m == Initialize && d == Rust:
		return RustInitialize
	case m == Initialize:
		return SchemaInitialize
	case m == Successor && d == Rust:
		return RustSuccessor
	case m == Successor:
		return SchemaSuccessor
	}
	return ""
}

// String is the dialect's name as flags and messages spell it: "schema" or
// "rust".
func (d Dialect) String() string {
	if d == Rust {
		return "rust"
	}
	return "schema"
}

// ParseDialect reads "schema" or "rust".
func ParseDialect(s string) (Dialect, bool) {
	switch s {
	case "schema":
		return Schema, true
	case "rust":
		return Rust, true
	}
	return Schema, false
}

// Of says which Proxy Chains method a wire name is, and in which dialect;
// None for any other name.
func Of(name string) (Method, Dialect) {
	switch name {
	case SchemaInitialize:
		return Initialize, Schema
	case SchemaSuccessor:
		return Successor, Schema
	case RustInitialize:
		return Initialize, Rust
	case RustSuccessor:
		return Successor, Rust
	}
	return None, Schema
}

// Reserved reports a name only a conductor and its components exchange: a
// proxy/ method of the schema's, or one of the Rust dialect's two.
func Reserved(name string) bool {
	m, _ := Of(name)
	return m != None || strings.HasPrefix(name, "proxy/")
}

// Canonical is name in the schema's dialect when it is a Proxy Chains
// method, else name.
func Canonical(name string) string {
	if m, _ := Of(name); m != None {
		return Schema.Name(m)
	}
	return name
}
