// Package corpus produces the inputs and the equality check for the
// round-trip tests of the generated ACP types: schema-driven example
// instances for every $defs entry, loaders for the hand-written message
// corpus under testdata/corpus, and a JSON comparison that follows ACP's
// "null member equals absent member" rule.
package corpus

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math/big"
	"net/url"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Example is one generated instance of a def.
type Example struct {
	Def  string
	Name string // short label: "full", "minimal", "defaults", "variant:text", "variant:text/minimal", ...
	JSON []byte
}

// Values the generator uses for unknown things, exported so tests and
// round-trip checks can recognise them.
const (
	// UnknownMember is added to every open object of a "full" example: ACP
	// objects must tolerate members they do not know.
	UnknownMember = "x_unknown_field"
	// FutureKind is the tag value of catch-all variants and the value of the
	// free member of open string enums.
	FutureKind = "x_future_kind"
)

const (
	// A def met more than maxReentry times on one path is generated
	// minimal, so recursive types end without exponential growth.
	maxReentry = 2
	// Past softDepth optional members are dropped whatever the path.
	softDepth = 16
	// hardDepth catches types whose recursion runs through required members,
	// which have no finite instance at all.
	hardDepth = 64
)

type mode int

const (
	modeFull     mode = iota // every optional member, realistic values
	modeMinimal              // required members only, zero values where valid
	modeDefaults             // minimal plus every member that has a default, set to it
)

// pick selects a branch of the first union met while resolving a schema.
type pick struct {
	set bool
	abs bool // k indexes all branches; otherwise only the eligible ones (not null, not catch-all)
	k   int
}

type ctx struct {
	mode  mode
	depth int
	name  string // member name or map key the value is for; picks realistic strings
	index int    // position in the enclosing array or map, to vary values
	pick  pick
	stack []string // defs entered on the way here, to spot recursion
}

type generator struct {
	defs map[string]any
}

// Examples generates, from the raw schema bytes, examples for every $defs
// entry: "full" and "minimal" (and "defaults" where defaults exist) for
// objects, one example per branch ("variant:<label>") for unions, and the
// same per branch in minimal form where that differs. Every example is meant
// to be valid against its def; the package tests check that with an
// independent validator.
func Examples(schema []byte) ([]Example, error) {
	dec := json.NewDecoder(bytes.NewReader(schema))
	dec.UseNumber() // keep consts, defaults and bounds exact
	var doc map[string]any
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("corpus: parse schema: %w", err)
	}
	defs, ok := doc["$defs"].(map[string]any)
	if !ok {
		return nil, errors.New("corpus: schema has no $defs object")
	}
	g := &generator{defs: defs}
	names := make([]string, 0, len(defs))
	for n := range defs {
		names = append(names, n)
	}
	sort.Strings(names)
	var out []Example
	for _, n := range names {
		ex, err := g.defExamples(n)
		if err != nil {
			return nil, fmt.Errorf("corpus: def %s: %w", n, err)
		}
		out = append(out, ex...)
	}
	return out, nil
}

func (g *generator) defExamples(def string) ([]Example, error) {
	root := []any{map[string]any{"$ref": "#/$defs/" + def}}
	var out []Example
	seen := map[string]bool{}
	add := func(name string, c ctx) error {
		v, err := g.value(root, c)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		b, err := encode(v)
		if err != nil {
			return err
		}
		if seen[string(b)] {
			return nil // same instance under another label adds nothing
		}
		seen[string(b)] = true
		out = append(out, Example{Def: def, Name: name, JSON: b})
		return nil
	}
	branches, err := g.firstUnion(root)
	if err != nil {
		return nil, err
	}
	if branches != nil {
		labels, err := g.branchLabels(branches)
		if err != nil {
			return nil, err
		}
		for k, l := range labels {
			p := pick{set: true, abs: true, k: k}
			if err := add("variant:"+l, ctx{mode: modeFull, pick: p}); err != nil {
				return nil, err
			}
			if err := add("variant:"+l+"/minimal", ctx{mode: modeMinimal, pick: p}); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	for _, m := range []struct {
		name string
		mode mode
	}{{"full", modeFull}, {"minimal", modeMinimal}, {"defaults", modeDefaults}} {
		if err := add(m.name, ctx{mode: m.mode}); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// node turns a schema value into its keyword map. Boolean schemas become an
// empty map (true) or an error (false).
func (g *generator) node(s any) (map[string]any, error) {
	switch v := s.(type) {
	case bool:
		if v {
			return map[string]any{}, nil
		}
		return nil, errors.New("schema false has no instance")
	case map[string]any:
		return v, nil
	}
	return nil, fmt.Errorf("schema is a %T, not an object", s)
}

func (g *generator) deref(ref string) (map[string]any, error) {
	name, ok := strings.CutPrefix(ref, "#/$defs/")
	if !ok || strings.Contains(name, "/") {
		return nil, fmt.Errorf("unsupported $ref %q", ref)
	}
	d, ok := g.defs[name]
	if !ok {
		return nil, fmt.Errorf("dangling $ref %q", ref)
	}
	return g.node(d)
}

// expand walks a conjunction of schemas breadth first, following $ref and
// allOf, and calls visit on each keyword map. visit returns extra schemas to
// walk (the chosen branch of a union) or stop to end the walk.
func (g *generator) expand(conj []any, onRef func(def string), visit func(m map[string]any) (more []any, stop bool, err error)) error {
	queue := append([]any(nil), conj...)
	for steps := 0; len(queue) > 0; steps++ {
		if steps > 10000 {
			return errors.New("schema expansion does not terminate ($ref/allOf cycle)")
		}
		m, err := g.node(queue[0])
		if err != nil {
			return err
		}
		queue = queue[1:]
		if ref, ok := m["$ref"].(string); ok {
			t, err := g.deref(ref)
			if err != nil {
				return err
			}
			queue = append(queue, t)
			if onRef != nil {
				onRef(strings.TrimPrefix(ref, "#/$defs/"))
			}
		}
		if all, ok := m["allOf"].([]any); ok {
			queue = append(queue, all...)
		}
		more, stop, err := visit(m)
		if err != nil || stop {
			return err
		}
		queue = append(queue, more...)
	}
	return nil
}

// firstUnion returns the branches of the first oneOf/anyOf met when
// expanding conj, the union a def's variants are enumerated over.
func (g *generator) firstUnion(conj []any) ([]any, error) {
	var found []any
	err := g.expand(conj, nil, func(m map[string]any) ([]any, bool, error) {
		if b := unionOf(m); b != nil {
			found = b
			return nil, true, nil
		}
		return nil, false, nil
	})
	return found, err
}

func unionOf(m map[string]any) []any {
	if b, ok := m["oneOf"].([]any); ok {
		return b
	}
	if b, ok := m["anyOf"].([]any); ok {
		return b
	}
	return nil
}

// resolved is a conjunction flattened to keyword maps with every union
// decided.
type resolved struct {
	nodes []map[string]any
	// avoid holds the consts of the sibling branches when the chosen branch
	// is the free member of an open enum, so the value differs from all.
	avoid []any
	// refs names the defs entered through $ref.
	refs []string
}

func (g *generator) resolve(conj []any, p pick) (resolved, error) {
	var r resolved
	pending := p.set
	onRef := func(def string) { r.refs = append(r.refs, def) }
	err := g.expand(conj, onRef, func(m map[string]any) ([]any, bool, error) {
		r.nodes = append(r.nodes, m)
		branches := unionOf(m)
		if branches == nil {
			return nil, false, nil
		}
		kinds := make([]branchKind, len(branches))
		var eligible []int
		for i, b := range branches {
			k, err := g.classify(b)
			if err != nil {
				return nil, false, err
			}
			kinds[i] = k
			if !k.null && !k.catchAll {
				eligible = append(eligible, i)
			}
		}
		choice := -1
		switch {
		case pending && p.abs:
			if p.k >= len(branches) {
				return nil, false, fmt.Errorf("variant %d of %d", p.k, len(branches))
			}
			choice, pending = p.k, false
		case pending && len(eligible) >= 2:
			choice, pending = eligible[p.k%len(eligible)], false
		case len(eligible) > 0:
			choice = eligible[0]
		default:
			choice = 0
		}
		if kinds[choice].constant == nil {
			for i, k := range kinds {
				if i != choice && k.constant != nil {
					r.avoid = append(r.avoid, k.constant)
				}
			}
		}
		return []any{branches[choice]}, false, nil
	})
	return r, err
}

type branchKind struct {
	null     bool
	catchAll bool
	constant any // the const of a scalar-const branch
	label    string
}

func (g *generator) classify(b any) (branchKind, error) {
	m, err := g.node(b)
	if err != nil {
		return branchKind{}, err
	}
	var k branchKind
	if ref, ok := m["$ref"].(string); ok && len(m) == 1 {
		t, err := g.deref(ref)
		if err != nil {
			return k, err
		}
		k.label = strings.TrimPrefix(ref, "#/$defs/")
		m = t
	}
	_, k.catchAll = m["not"]
	if t, ok := m["type"].(string); ok && t == "null" {
		k.null = true
		k.label = "null"
	}
	if c, ok := m["const"]; ok {
		k.constant = c
		k.label = fmt.Sprint(c)
	} else if props, ok := m["properties"].(map[string]any); ok {
		for _, name := range slices.Sorted(maps.Keys(props)) {
			if pm, ok := props[name].(map[string]any); ok {
				if c, ok := pm["const"]; ok {
					k.label = fmt.Sprint(c)
					break
				}
			}
		}
	}
	if t, ok := m["title"].(string); ok && t != "" {
		k.label = t
	}
	return k, nil
}

func (g *generator) branchLabels(branches []any) ([]string, error) {
	labels := make([]string, len(branches))
	used := map[string]bool{}
	for i, b := range branches {
		k, err := g.classify(b)
		if err != nil {
			return nil, err
		}
		l := k.label
		if l == "" || used[l] {
			l = fmt.Sprintf("%s#%d", l, i)
		}
		used[l] = true
		labels[i] = l
	}
	return labels, nil
}

// value generates an instance satisfying every schema in conj.
func (g *generator) value(conj []any, c ctx) (any, error) {
	if c.depth > hardDepth {
		return nil, errors.New("recursion through required members does not terminate")
	}
	r, err := g.resolve(conj, c.pick)
	if err != nil {
		return nil, err
	}
	c.pick = pick{} // a pick applies to one union only
	for _, def := range r.refs {
		seen := 0
		for _, d := range c.stack {
			if d == def {
				seen++
			}
		}
		if seen >= maxReentry && c.mode == modeFull {
			c.mode = modeMinimal
		}
	}
	c.stack = append(c.stack[:len(c.stack):len(c.stack)], r.refs...)
	nodes := r.nodes

	var constant any
	hasConst := false
	for _, m := range nodes {
		if v, ok := m["const"]; ok {
			if hasConst && !jsonEqual(constant, v) {
				return nil, fmt.Errorf("conflicting consts %v and %v", constant, v)
			}
			constant, hasConst = v, true
		}
	}
	if hasConst {
		return constant, nil
	}
	for _, m := range nodes {
		if e, ok := m["enum"].([]any); ok && len(e) > 0 {
			return e[0], nil
		}
	}

	types, err := typeSet(nodes)
	if err != nil {
		return nil, err
	}
	switch chooseType(types, nodes) {
	case "object":
		return g.object(nodes, c)
	case "array":
		return g.array(nodes, c)
	case "string":
		return stringValue(nodes, c, r.avoid), nil
	case "integer":
		return integerValue(nodes, c, r.avoid)
	case "number":
		return numberValue(nodes, c)
	case "boolean":
		return c.mode == modeFull, nil
	case "null":
		return nil, nil
	case "any":
		return anyValue(c), nil
	}
	return nil, fmt.Errorf("no type satisfies %v", slices.Sorted(maps.Keys(types)))
}

var allTypes = []string{"object", "array", "string", "integer", "number", "boolean", "null"}

// typeSet intersects the "type" keywords; nil means unconstrained.
func typeSet(nodes []map[string]any) (map[string]bool, error) {
	var set map[string]bool
	for _, m := range nodes {
		t, ok := m["type"]
		if !ok {
			continue
		}
		cur := map[string]bool{}
		switch v := t.(type) {
		case string:
			cur[v] = true
		case []any:
			for _, x := range v {
				s, ok := x.(string)
				if !ok {
					return nil, fmt.Errorf("bad type entry %v", x)
				}
				cur[s] = true
			}
		default:
			return nil, fmt.Errorf("bad type %v", t)
		}
		if set == nil {
			set = cur
			continue
		}
		next := map[string]bool{}
		for k := range set {
			if cur[k] {
				next[k] = true
			}
		}
		// integer is a subset of number, so number ∩ integer = integer.
		if set["integer"] && cur["number"] || set["number"] && cur["integer"] {
			next["integer"] = true
		}
		set = next
	}
	if set != nil && len(set) == 0 {
		return nil, errors.New("type keywords have an empty intersection")
	}
	return set, nil
}

func chooseType(types map[string]bool, nodes []map[string]any) string {
	if types == nil {
		for _, m := range nodes {
			for _, k := range []string{"properties", "additionalProperties", "required", "unevaluatedProperties"} {
				if _, ok := m[k]; ok {
					return "object"
				}
			}
			if _, ok := m["items"]; ok {
				return "array"
			}
		}
		return "any"
	}
	// allTypes puts null last, so a nullable type yields its non-null form.
	for _, t := range allTypes {
		if types[t] {
			return t
		}
	}
	return ""
}

func formatOf(nodes []map[string]any) string {
	for _, m := range nodes {
		if f, ok := m["format"].(string); ok {
			return f
		}
	}
	return ""
}

func (g *generator) object(nodes []map[string]any, c ctx) (any, error) {
	props := map[string][]any{}
	required := map[string]bool{}
	var mapSchemas []any
	open, closed := true, false
	forbidden := map[string][]any{}
	for _, m := range nodes {
		if ps, ok := m["properties"].(map[string]any); ok {
			for name, s := range ps {
				props[name] = append(props[name], s)
			}
		}
		if req, ok := m["required"].([]any); ok {
			for _, x := range req {
				if s, ok := x.(string); ok {
					required[s] = true
				}
			}
		}
		switch ap := m["additionalProperties"].(type) {
		case bool:
			if !ap {
				open, closed = false, true
			}
		case map[string]any:
			mapSchemas = append(mapSchemas, ap)
			open = false
		}
		if up, ok := m["unevaluatedProperties"].(bool); ok && !up {
			open, closed = false, true
		}
		if not, ok := m["not"]; ok {
			if err := g.tagConsts(not, forbidden); err != nil {
				return nil, err
			}
		}
	}
	if c.depth >= softDepth && c.mode == modeFull {
		c.mode = modeMinimal
	}
	obj := map[string]any{}
	child := func(name string) ctx {
		// index carries on so members of a second array item differ
		// from the first.
		return ctx{mode: c.mode, depth: c.depth + 1, name: name, index: c.index, stack: c.stack}
	}
	names := slices.Sorted(maps.Keys(props))
	for name := range required {
		if _, ok := props[name]; !ok {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	for _, name := range names {
		conj, declared := props[name]
		def, hasDef := g.defaultOf(conj)
		include := required[name] || c.mode == modeFull || (c.mode == modeDefaults && hasDef)
		if !include {
			continue
		}
		switch {
		case len(forbidden[name]) > 0:
			// The catch-all of an open union: any tag but the known ones.
			obj[name] = FutureKind
		case c.mode == modeDefaults && hasDef:
			obj[name] = def
		case name == "_meta" && g.isFreeObject(conj):
			obj[name] = metaValue()
		case !declared && mapSchemas != nil:
			v, err := g.value(mapSchemas, child(name))
			if err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
			obj[name] = v
		default:
			v, err := g.value(conj, child(name))
			if err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
			obj[name] = v
		}
	}
	switch {
	case mapSchemas != nil:
		if c.mode == modeFull {
			for i, key := range mapKeys(c.name) {
				if _, taken := props[key]; taken {
					continue
				}
				cc := child(key)
				cc.index = i
				cc.pick = pick{set: true, k: i} // mix union variants across entries
				v, err := g.value(mapSchemas, cc)
				if err != nil {
					return nil, fmt.Errorf("entry %s: %w", key, err)
				}
				obj[key] = v
			}
		}
	case open && !closed && c.mode == modeFull:
		obj[UnknownMember] = unknownValue()
	}
	return obj, nil
}

// tagConsts reads the `not` of a catch-all variant: an anyOf of objects each
// pinning one member to a const. Anything else is reported, so a new schema
// shape fails loudly instead of yielding an invalid example.
func (g *generator) tagConsts(not any, into map[string][]any) error {
	m, err := g.node(not)
	if err != nil {
		return err
	}
	alts, ok := m["anyOf"].([]any)
	if !ok {
		alts = []any{m}
	}
	for _, a := range alts {
		am, err := g.node(a)
		if err != nil {
			return err
		}
		ps, _ := am["properties"].(map[string]any)
		found := false
		for name, s := range ps {
			if sm, ok := s.(map[string]any); ok {
				if c, ok := sm["const"]; ok {
					into[name] = append(into[name], c)
					found = true
				}
			}
		}
		if !found {
			return fmt.Errorf("unsupported `not` shape %v", a)
		}
	}
	return nil
}

func (g *generator) defaultOf(conj []any) (any, bool) {
	for _, s := range conj {
		if m, err := g.node(s); err == nil {
			if d, ok := m["default"]; ok {
				return d, true
			}
		}
	}
	return nil, false
}

// isFreeObject reports an object schema with no declared members that
// accepts any member, the shape of every `_meta`.
func (g *generator) isFreeObject(conj []any) bool {
	for _, s := range conj {
		m, err := g.node(s)
		if err != nil {
			return false
		}
		if _, ok := m["properties"]; ok {
			return false
		}
		if ap, ok := m["additionalProperties"]; ok && ap != true {
			return false
		}
		if _, ok := m["$ref"]; ok {
			return false
		}
	}
	return true
}

func (g *generator) array(nodes []map[string]any, c ctx) (any, error) {
	var items []any
	for _, m := range nodes {
		if it, ok := m["items"]; ok {
			items = append(items, it)
		}
	}
	out := []any{}
	if c.mode != modeFull || c.depth >= softDepth {
		return out, nil
	}
	for i := 0; i < 2; i++ {
		cc := ctx{mode: c.mode, depth: c.depth + 1, name: c.name, index: i, pick: pick{set: true, k: i}, stack: c.stack}
		v, err := g.value(items, cc)
		if err != nil {
			return nil, fmt.Errorf("item %d: %w", i, err)
		}
		out = append(out, v)
	}
	return out, nil
}

// sampleStrings gives realistic values by member name, so generated examples
// read like real traffic and exercise non-ASCII and escaped characters.
var sampleStrings = map[string]string{
	"additionalDirectories": "/home/dev/src/shared-lib",
	"baseUrl":               "https://llm-gateway.example.com/v1",
	"blob":                  "UEsDBBQAAAAIAAx4Z1nQ8e3Y",
	"command":               "npx",
	"args":                  "--stdio",
	"content":               "package lexer\n\nfunc Next() Token { return Token{} }\n",
	"currency":              "USD",
	"cwd":                   "/home/dev/src/acme",
	"data":                  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYGBgAAAABQABpfZFQAAAAABJRU5ErkJggg==",
	"description":           "Runs the project's unit tests and reports failures",
	"email":                 "dev@example.com",
	"enum":                  "staging",
	"error":                 "summary model returned an empty response",
	"hint":                  "a package path such as ./internal/...",
	"label":                 "work account",
	"lastModified":          "2026-03-24T12:00:00Z",
	"message":               "Which environment should the migration run against?",
	"mimeType":              "text/markdown",
	"name":                  "run-tests",
	"newText":               "func Next() Token {\n\treturn Token{Kind: EOF}\n}\n",
	"oldText":               "func Next() Token {\n\treturn Token{}\n}\n",
	"organization":          "Acme Tooling",
	"output":                "ok  \tacme/internal/lexer\t0.012s\nFAIL\tacme/internal/parser [build failed]\n",
	"path":                  "/home/dev/src/acme/internal/lexer/lexer.go",
	"pattern":               "^[a-z][a-z0-9-]*$",
	"signal":                "SIGTERM",
	"text":                  "Refactor the lexer ✨ — keep \"quoted\" <tags> & tabs\tintact.\nSecond line: naïve café 日本語 \u2028end.",
	"title":                 "Refactor lexer for streaming input",
	"updatedAt":             "2026-03-24T12:00:00Z",
	"uri":                   "file:///home/dev/src/acme/README.md",
	"url":                   "https://mcp.example.com/mcp",
	"value":                 "gpt-large",
	"version":               "2.4.0",
}

func stringValue(nodes []map[string]any, c ctx, avoid []any) string {
	minLen := 0
	for _, m := range nodes {
		if n, ok := m["minLength"].(json.Number); ok {
			if v, err := strconv.Atoi(n.String()); err == nil && v > minLen {
				minLen = v
			}
		}
	}
	format := formatOf(nodes)
	if len(avoid) > 0 {
		return FutureKind
	}
	if c.mode != modeFull && minLen == 0 && format == "" {
		return "" // required strings must survive even when empty
	}
	s, ok := sampleStrings[c.name]
	switch {
	case ok:
	case strings.HasSuffix(c.name, "Id") && len(c.name) > 2:
		s = strings.ToLower(strings.TrimSuffix(c.name, "Id")) + "_7f3a9c"
	case c.name != "":
		s = "example " + c.name
	default:
		s = "example"
	}
	if c.index > 0 {
		s += "-" + strconv.Itoa(c.index+1)
	}
	if format == "uri" {
		if u, err := url.Parse(s); err != nil || u.Scheme == "" || strings.ContainsAny(s, " \\") {
			s = "https://example.com/" + url.PathEscape(c.name)
		}
	}
	for len([]rune(s)) < minLen {
		s += "x"
	}
	return s
}

// formatRange gives each integer format's range. Full examples use the top
// so decoders must keep the whole range (uint64 beyond 2^53 is lost by
// float64); int64 uses 2^53+1 instead, for the same reason.
var formatRange = map[string][2]string{
	"int8":   {"-128", "127"},
	"uint8":  {"0", "255"},
	"int16":  {"-32768", "32767"},
	"uint16": {"0", "65535"},
	"int32":  {"-2147483648", "2147483647"},
	"uint32": {"0", "4294967295"},
	"int64":  {"-9223372036854775808", "9223372036854775807"},
	"uint64": {"0", "18446744073709551615"},
}

func integerValue(nodes []map[string]any, c ctx, avoid []any) (any, error) {
	lo, hi, err := bounds(nodes)
	if err != nil {
		return nil, err
	}
	var v *big.Int
	if c.mode == modeFull {
		switch f := formatOf(nodes); f {
		case "int64":
			v = big.NewInt(9007199254740993) // 2^53+1: exact only without float64
		case "":
			v = big.NewInt(42)
		default:
			r, ok := formatRange[f]
			if !ok {
				return nil, fmt.Errorf("unknown integer format %q", f)
			}
			v, _ = new(big.Int).SetString(r[1], 10)
		}
	} else {
		v = big.NewInt(0)
	}
	v = clamp(v, lo, hi)
	for _, a := range avoid {
		if n, ok := a.(json.Number); ok && n.String() == v.String() {
			v = clamp(new(big.Int).Add(v, big.NewInt(1)), lo, hi)
		}
	}
	return json.Number(v.String()), nil
}

func numberValue(nodes []map[string]any, c ctx) (any, error) {
	lo, hi, err := bounds(nodes)
	if err != nil {
		return nil, err
	}
	if c.mode != modeFull {
		return json.Number(clamp(big.NewInt(0), lo, hi).String()), nil
	}
	// 0.875 has an exact binary form, so float64 decoders keep it too; a
	// value outside the bounds falls back to a bound.
	r := big.NewRat(7, 8)
	below := lo != nil && r.Cmp(new(big.Rat).SetInt(lo)) < 0
	above := hi != nil && r.Cmp(new(big.Rat).SetInt(hi)) > 0
	if below || above {
		return json.Number(clamp(big.NewInt(0), lo, hi).String()), nil
	}
	return json.Number("0.875"), nil
}

// bounds reads minimum/maximum as integers (the schema only has integral
// ones); nil means unbounded.
func bounds(nodes []map[string]any) (lo, hi *big.Int, err error) {
	read := func(x any) (*big.Int, error) {
		n, ok := x.(json.Number)
		if !ok {
			return nil, fmt.Errorf("bound %v is not a number", x)
		}
		r, ok := new(big.Rat).SetString(n.String())
		if !ok {
			return nil, fmt.Errorf("bad bound %s", n)
		}
		if !r.IsInt() {
			return nil, fmt.Errorf("non-integral bound %s unsupported", n)
		}
		return r.Num(), nil
	}
	for _, m := range nodes {
		if x, ok := m["minimum"]; ok {
			b, err := read(x)
			if err != nil {
				return nil, nil, err
			}
			if lo == nil || b.Cmp(lo) > 0 {
				lo = b
			}
		}
		if x, ok := m["maximum"]; ok {
			b, err := read(x)
			if err != nil {
				return nil, nil, err
			}
			if hi == nil || b.Cmp(hi) < 0 {
				hi = b
			}
		}
	}
	return lo, hi, nil
}

func clamp(v, lo, hi *big.Int) *big.Int {
	if lo != nil && v.Cmp(lo) < 0 {
		return lo
	}
	if hi != nil && v.Cmp(hi) > 0 {
		return hi
	}
	return v
}

// mapKeys names the two entries of a map-valued member.
func mapKeys(member string) []string {
	switch member {
	case "env":
		return []string{"RUST_LOG", "NO_COLOR"}
	case "headers":
		return []string{"Authorization", "X-Request-Id"}
	case "properties":
		return []string{"environment", "retries"}
	case "content":
		return []string{"environment", "confirmed"}
	}
	return []string{"alpha", "beta"}
}

func metaValue() map[string]any {
	return map[string]any{
		"acpgen.dev/trace": map[string]any{"traceId": "4bf92f3577b34da6a3ce929d0e0e4736", "sampled": true},
		"example.com":      map[string]any{"labels": []any{"ci", json.Number("3")}},
	}
}

func unknownValue() map[string]any {
	return map[string]any{"nested": []any{json.Number("1"), "two", nil}}
}

// anyValue fills schemas that allow anything (rawInput, data, result): a
// mixed document with a big integer and an exponent, which a decoder into
// float64 would alter.
func anyValue(c ctx) any {
	if c.mode != modeFull {
		return map[string]any{}
	}
	return map[string]any{
		"command": "git status --short",
		"bigId":   json.Number("12345678901234567890"),
		"ratio":   json.Number("2.5e3"),
		"flags":   []any{"-s", true, nil, json.Number("-0.125")},
		"nested":  map[string]any{"empty": map[string]any{}, "list": []any{}},
	}
}

// jsonEqual compares decoded schema values; numbers compare by their text,
// which suffices for consts written by one generator.
func jsonEqual(a, b any) bool {
	return reflect.DeepEqual(a, b)
}

// encode writes compact JSON with sorted keys and without HTML escaping, so
// examples are byte-for-byte stable.
func encode(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}
