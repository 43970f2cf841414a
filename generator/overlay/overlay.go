// Package overlay applies RFD and vendor overlays to a base schema.
//
// An overlay (format: overlay.schema.json) is an ordered list of typed
// changes. Applied to a base, each change is added, found already upstream,
// found upstream but tightened, skipped (an optional target the base lacks),
// or in conflict with the base or with an earlier overlay.
package overlay

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/acpgen/acpgen/generator/facts"
	"github.com/acpgen/acpgen/generator/load"
	"github.com/acpgen/acpgen/runtime/jsonpointer"
)

// Change states.
const (
	Added     = "added"
	Upstream  = "upstream"  // the base already has an equivalent change
	Tightened = "tightened" // upstream has it, the overlay makes its rules stricter
	Removed   = "removed"
	Skipped   = "skipped" // an optional target this base lacks
	Conflict  = "conflict"
)

// Status reports what one change of one overlay did to the base.
type Status struct {
	Overlay string // overlay id
	Change  string // the change's label or target
	State   string // Added, Upstream, Tightened, Removed, Skipped or Conflict
	Pointer string // JSON pointer in the base schema
	Detail  string
}

// Result is the outcome of applying overlays to one base schema: data for
// the later stages, which bind and read it.
type Result struct {
	Schema   []byte // the merged schema document
	Overlays []facts.OverlayInfo
	Statuses []Status
	// Gates are the rows overlays declare on methods.
	Gates []facts.Gate
	// DefGates are the gates and presence rules overlays declare on a def's
	// member; the merged schema's IR binds them to methods.
	DefGates []facts.DefGate
	// Semantics drives generated helpers.
	Semantics facts.Semantics
	// AddedDefs are the defs the overlays added to the base, in order.
	AddedDefs []string
	// Doc is Schema loaded.
	Doc *load.Document
}

// ConflictError lists every conflict of an application; the Result beside it
// is complete, so a status report can show them.
type ConflictError struct{ Conflicts []string }

func (e *ConflictError) Error() string {
	return fmt.Sprintf("%d overlay conflict(s):\n  %s", len(e.Conflicts), strings.Join(e.Conflicts, "\n  "))
}

// ApplyFiles applies the overlay files in order to base (read from
// baseFile); with none, the Result is base loaded. On conflicts it returns
// the full Result and a *ConflictError.
func ApplyFiles(base []byte, baseFile string, files []string) (*Result, error) {
	if len(files) == 0 {
		doc, err := load.Load(baseFile, base)
		if err != nil {
			return nil, err
		}
		return &Result{Schema: base, Doc: doc}, nil
	}
	var docs []*Document
	for _, f := range files {
		d, err := ReadFile(f)
		if err != nil {
			return nil, err
		}
		docs = append(docs, d)
	}
	return Apply(base, baseFile, docs)
}

// Apply applies parsed overlays in order to base.
func Apply(base []byte, baseFile string, docs []*Document) (*Result, error) {
	root, err := load.Parse(base)
	if err != nil {
		return nil, fmt.Errorf("%s: invalid JSON: %w", baseFile, err)
	}
	defs := get(root, "$defs")
	if defs == nil || defs.Kind != load.Object {
		return nil, fmt.Errorf("%s: no $defs object", baseFile)
	}
	a := &applier{root: root, defs: defs, baseFile: baseFile, res: &Result{}, touched: map[string]touch{}}
	ids := map[string]string{}
	for _, d := range docs {
		if prev, ok := ids[d.ID]; ok {
			return nil, fmt.Errorf("%s: overlay id %q is also the id of %s", d.File, d.ID, prev)
		}
		ids[d.ID] = d.File
		a.res.Overlays = append(a.res.Overlays, facts.OverlayInfo{ID: d.ID, Title: d.Title, URL: d.URL, Status: d.Status})
		if slices.ContainsFunc(d.Changes, func(c Change) bool { return c.Illustrative }) {
			a.res.Overlays = append(a.res.Overlays, facts.OverlayInfo{ID: d.ID + illustrative, Title: d.Title, URL: d.URL, Status: d.Status + "; illustrative shape: the source names it but defines none"})
		}
	}
	for _, d := range docs {
		for i := range d.Changes {
			a.doc, a.at = d, fmt.Sprintf("/changes/%d", i)
			if err := a.apply(&d.Changes[i]); err != nil {
				return nil, err
			}
		}
	}
	a.res.Schema = root.JSON()
	// The merged tree must still be a document the loader accepts; it is
	// loaded once, here, and kept for the generator.
	doc, err := load.LoadTree(baseFile+" (with overlays)", root, a.res.Schema)
	if err != nil {
		return nil, err
	}
	a.res.Doc = doc
	if len(a.conflicts) > 0 {
		return a.res, &ConflictError{a.conflicts}
	}
	return a.res, nil
}

// illustrative suffixes the provenance id of shapes an overlay invented.
const illustrative = "#illustrative"

type touch struct{ overlay, canon string }

type applier struct {
	root, defs *load.Node
	baseFile   string
	res        *Result
	doc        *Document
	at         string // pointer of the current change in its overlay file
	touched    map[string]touch
	conflicts  []string
}

func (a *applier) fail(format string, args ...any) error {
	return &Error{a.doc.File, a.at, fmt.Sprintf(format, args...)}
}

func (a *applier) status(label, state, ptr, detail string) {
	a.res.Statuses = append(a.res.Statuses, Status{Overlay: a.doc.ID, Change: label, State: state, Pointer: ptr, Detail: detail})
	if state == Conflict {
		a.conflicts = append(a.conflicts, fmt.Sprintf("%s#%s (%s) against %s#%s: %s", a.doc.File, a.at, label, a.baseFile, ptr, detail))
	}
}

func (a *applier) def(name string) *load.Node { return get(a.defs, name) }

// provID is what the change writes into x-acpgen-overlay.
func (a *applier) provID(c *Change) string {
	if c.Illustrative {
		return a.doc.ID + illustrative
	}
	return a.doc.ID
}

func mark(n *load.Node, id string) {
	l := get(n, "x-acpgen-overlay")
	if l == nil {
		l = &load.Node{Kind: load.Array}
		set(n, "x-acpgen-overlay", l)
	}
	for _, it := range l.Items {
		if it.String == id {
			return
		}
	}
	l.Items = append(l.Items, str(id))
}

// claim records that the current overlay changes ptr to what canon says;
// another overlay changing it differently is a conflict. It reports the
// overlay that already made the same change, if any.
func (a *applier) claim(ptr string, n *load.Node) (same string, conflict string) {
	c := canon(n)
	if prev, ok := a.touched[ptr]; ok && prev.overlay != a.doc.ID {
		if prev.canon != c {
			return "", fmt.Sprintf("overlay %q already changed it differently", prev.overlay)
		}
		return prev.overlay, ""
	}
	a.touched[ptr] = touch{a.doc.ID, c}
	return "", ""
}

func (a *applier) apply(c *Change) error {
	switch c.Op {
	case "def":
		return a.addDef(c, c.Def, c.schema, c.Def)
	case "property":
		return a.property(c)
	case "remove":
		return a.remove(c)
	case "method":
		return a.method(c)
	case "meta":
		return a.meta(c)
	case "errorCodes":
		return a.errorCodes(c)
	case "roots":
		return a.roots(c)
	case "filter":
		return a.filter(c)
	case "alias":
		return a.alias(c)
	}
	return a.fail("unknown op %q", c.Op)
}

func label(c *Change, def string) string {
	if c.Label != "" {
		if def != "" && len(c.Defs) > 1 {
			return c.Label + " (" + def + ")"
		}
		return c.Label
	}
	return def
}

// addDef adds a $defs entry, or compares it with the one the base has.
func (a *applier) addDef(c *Change, name string, schema *load.Node, lbl string) error {
	ptr := load.DefPointer(name)
	if c.Label != "" {
		lbl = c.Label
	} else {
		lbl = "def " + lbl
	}
	if same, msg := a.claim(ptr, schema); msg != "" {
		a.status(lbl, Conflict, ptr, msg)
		return nil
	} else if same != "" {
		a.status(lbl, Upstream, ptr, fmt.Sprintf("the same change as overlay %q", same))
		return nil
	}
	existing := a.def(name)
	if existing == nil {
		n := clone(schema)
		mark(n, a.provID(c))
		set(a.defs, name, n)
		a.res.AddedDefs = append(a.res.AddedDefs, name)
		a.status(lbl, Added, ptr, "")
		return nil
	}
	var r report
	merged := merge(existing, schema, "", &r)
	a.settle(c, lbl, ptr, &r, func() {
		mark(merged, a.provID(c))
		set(a.defs, name, merged)
	})
	return nil
}

// settle reports a merge and applies it when it changed something.
func (a *applier) settle(c *Change, lbl, ptr string, r *report, apply func()) {
	switch {
	case len(r.conflicts) > 0:
		a.status(lbl, Conflict, ptr, "the base has it with a different shape: "+strings.Join(r.conflicts, "; "))
	case len(r.tightened) > 0:
		apply()
		a.status(lbl, Tightened, ptr, strings.Join(r.tightened, "; "))
	case r.annotated:
		apply()
		a.status(lbl, Upstream, ptr, "annotated")
	default:
		a.status(lbl, Upstream, ptr, "")
	}
}

// target returns the def a change names, or reports why it has none: a
// missing optional target is skipped, a missing required one is an error.
func (a *applier) target(c *Change, def, lbl string) (*load.Node, error) {
	d := a.def(def)
	if d == nil {
		if slices.Contains(c.SkipIfAbsent, def) {
			a.status(lbl, Skipped, load.DefPointer(def), "the base has no $defs/"+def)
			return nil, nil
		}
		return nil, a.fail("target $defs/%s does not exist in %s", def, a.baseFile)
	}
	if t := get(d, "type"); t == nil || !hasType(t, "object") {
		return nil, a.fail("target $defs/%s in %s is not an object schema", def, a.baseFile)
	}
	return d, nil
}

func (a *applier) property(c *Change) error {
	for _, def := range c.Defs {
		lbl := label(c, def)
		if c.Label == "" {
			lbl = "property " + def + "." + c.Name
		}
		d, err := a.target(c, def, lbl)
		if err != nil {
			return err
		}
		if d == nil {
			continue
		}
		ptr := load.DefPointer(def) + "/properties/" + jsonpointer.Escape(c.Name)
		if of := aliasOwner(d, c.Name); of != "" {
			return &Error{a.doc.File, a.at + "/name", fmt.Sprintf("member %q of $defs/%s is already another name of member %q", c.Name, def, of)}
		}
		want := clone(c.schema)
		if c.Ephemeral {
			set(want, "x-acpgen-ephemeral", &load.Node{Kind: load.Bool, Bool: true})
		}
		if c.Gate != nil {
			a.res.DefGates = append(a.res.DefGates, facts.DefGate{Def: def, Member: c.Name, Capability: c.Gate.Capability, Source: a.doc.ID, Where: a.doc.File + "#" + a.at})
		}
		if c.PresentWhen != nil {
			a.res.DefGates = append(a.res.DefGates, facts.DefGate{Def: def, Member: c.Name, Capability: c.PresentWhen.Capability, Require: true, Source: a.doc.ID, Where: a.doc.File + "#" + a.at})
		}
		if same, msg := a.claim(ptr, want); msg != "" {
			a.status(lbl, Conflict, ptr, msg)
			continue
		} else if same != "" {
			a.status(lbl, Upstream, ptr, fmt.Sprintf("the same change as overlay %q", same))
			continue
		}
		props := get(d, "properties")
		if props == nil {
			props = &load.Node{Kind: load.Object}
			set(d, "properties", props)
		}
		existing := get(props, c.Name)
		if existing == nil {
			n := clone(want)
			mark(n, a.provID(c))
			set(props, c.Name, n)
			if c.Required {
				addRequired(d, c.Name)
			}
			mark(d, a.provID(c))
			a.status(lbl, Added, ptr, "")
			continue
		}
		var r report
		merged := merge(existing, want, "", &r)
		if c.Required && !isRequired(d, c.Name) {
			r.tighten("", "makes it required")
		}
		a.settle(c, lbl, ptr, &r, func() {
			mark(merged, a.provID(c))
			set(props, c.Name, merged)
			if c.Required {
				addRequired(d, c.Name)
			}
			mark(d, a.provID(c))
		})
	}
	return nil
}

func isRequired(d *load.Node, name string) bool {
	if r := get(d, "required"); r != nil {
		for _, it := range r.Items {
			if it.String == name {
				return true
			}
		}
	}
	return false
}

func addRequired(d *load.Node, name string) {
	if isRequired(d, name) {
		return
	}
	r := get(d, "required")
	if r == nil {
		r = &load.Node{Kind: load.Array}
		set(d, "required", r)
	}
	r.Items = append(r.Items, str(name))
}

func (a *applier) remove(c *Change) error {
	for _, def := range c.Defs {
		if c.Name == "" {
			lbl := label(c, def)
			if c.Label == "" {
				lbl = "remove def " + def
			}
			ptr := load.DefPointer(def)
			if a.def(def) == nil {
				a.status(lbl, Upstream, ptr, "already absent")
				continue
			}
			del(a.defs, def)
			a.status(lbl, Removed, ptr, "")
			continue
		}
		lbl := label(c, def)
		if c.Label == "" {
			lbl = "remove property " + def + "." + c.Name
		}
		d, err := a.target(c, def, lbl)
		if err != nil {
			return err
		}
		if d == nil {
			continue
		}
		ptr := load.DefPointer(def) + "/properties/" + jsonpointer.Escape(c.Name)
		props := get(d, "properties")
		if get(props, c.Name) == nil {
			a.status(lbl, Upstream, ptr, "already absent")
			continue
		}
		del(props, c.Name)
		if r := get(d, "required"); r != nil {
			kept := r.Items[:0]
			for _, it := range r.Items {
				if it.String != c.Name {
					kept = append(kept, it)
				}
			}
			r.Items = kept
		}
		mark(d, a.provID(c))
		a.status(lbl, Removed, ptr, "")
	}
	return nil
}

// alias gives a member other names, which generated code accepts only when
// decoding leniently. Each name must be free in the def: neither a member
// nor another member's alias.
func (a *applier) alias(c *Change) error {
	for _, def := range c.Defs {
		lbl := label(c, def)
		if c.Label == "" {
			lbl = "alias " + def + "." + c.Name
		}
		d, err := a.target(c, def, lbl)
		if err != nil {
			return err
		}
		if d == nil {
			continue
		}
		prop := get(get(d, "properties"), c.Name)
		if prop == nil {
			return &Error{a.doc.File, a.at + "/name", fmt.Sprintf("$defs/%s has no member %q in %s", def, c.Name, a.baseFile)}
		}
		ptr := load.DefPointer(def) + "/properties/" + jsonpointer.Escape(c.Name) + "/x-acpgen-aliases"
		list := get(prop, "x-acpgen-aliases")
		added := 0
		for i, name := range c.Aliases {
			at := fmt.Sprintf("%s/aliases/%d", a.at, i)
			if get(get(d, "properties"), name) != nil {
				return &Error{a.doc.File, at, fmt.Sprintf("alias %q of %s collides with the member %q of $defs/%s", name, c.Name, name, def)}
			}
			switch of := aliasOwner(d, name); of {
			case "":
			case c.Name:
				continue // declared before, for the same member
			default:
				return &Error{a.doc.File, at, fmt.Sprintf("alias %q of %s collides with an alias of member %q of $defs/%s", name, c.Name, of, def)}
			}
			if list == nil {
				list = &load.Node{Kind: load.Array}
				set(prop, "x-acpgen-aliases", list)
			}
			list.Items = append(list.Items, str(name))
			added++
		}
		if added == 0 {
			a.status(lbl, Upstream, ptr, "every alias is declared already")
			continue
		}
		mark(prop, a.provID(c))
		mark(d, a.provID(c))
		a.status(lbl, Added, ptr, "")
	}
	return nil
}

// aliasOwner returns the member of def d that has name as an alias, or "".
func aliasOwner(d *load.Node, name string) string {
	props := get(d, "properties")
	if props == nil {
		return ""
	}
	for _, m := range props.Members {
		if l := get(m.Value, "x-acpgen-aliases"); l != nil {
			for _, it := range l.Items {
				if it.String == name {
					return m.Name
				}
			}
		}
	}
	return ""
}

// routing names the union that carries a method's params or result: unions
// are named after the sender, so a request the agent handles travels in
// ClientRequest and its result in AgentResponse.
func routing(side, kind, role string) string {
	sender := map[string]string{"agent": "Client", "client": "Agent"}[side]
	handler := map[string]string{"agent": "Agent", "client": "Client"}[side]
	switch {
	case role == "result":
		return handler + "Response"
	case kind == "notification":
		return sender + "Notification"
	}
	return sender + "Request"
}

func (a *applier) method(c *Change) error {
	lbl := c.Label
	if lbl == "" {
		lbl = c.Kind + " " + c.Method
	}
	// The base may know the wire name already, under another def.
	for _, d := range a.defs.Members {
		xm, xs := get(d.Value, "x-method"), get(d.Value, "x-side")
		if xm != nil && xm.String == c.Method && xs != nil && xs.String == c.Side && d.Name != c.Params.Def && (c.Result == nil || d.Name != c.Result.Def) {
			a.status(lbl, Conflict, load.DefPointer(d.Name), fmt.Sprintf("the base already binds %s (handled by %s) to $defs/%s", c.Method, c.Side, d.Name))
			return nil
		}
	}
	parts := []struct {
		ds   *DefSchema
		n    *load.Node
		role string
	}{{c.Params, c.params, "params"}}
	if c.Result != nil {
		parts = append(parts, struct {
			ds   *DefSchema
			n    *load.Node
			role string
		}{c.Result, c.result, "result"})
	}
	for _, p := range parts {
		n := clone(p.n)
		if t := get(n, "type"); t == nil || !hasType(t, "object") {
			return a.fail("the %s of a method must be an object schema", p.role)
		}
		set(n, "x-side", str(c.Side))
		set(n, "x-method", str(c.Method))
		before := len(a.res.Statuses)
		if err := a.addDef(&Change{Illustrative: c.Illustrative, Label: lbl + " " + p.role}, p.ds.Def, n, p.ds.Def); err != nil {
			return err
		}
		if a.res.Statuses[before].State == Conflict {
			return nil
		}
		union := routing(c.Side, c.Kind, p.role)
		if err := a.route(union, p.role, p.ds.Def, a.doc.ID); err != nil {
			return err
		}
	}
	if c.Gate != nil {
		a.res.Gates = append(a.res.Gates, facts.Gate{Method: c.Method, Capability: c.Gate.Capability, Source: a.doc.ID})
	}
	return nil
}

// route adds def as a branch of union's params or result, before the
// catch-all extension branch, unless the union has it already.
func (a *applier) route(union, member, def, id string) error {
	u := a.def(union)
	if u == nil {
		return a.fail("routing union $defs/%s does not exist in %s", union, a.baseFile)
	}
	list := routingList(u, member)
	if list == nil {
		return a.fail("found no %s branches in routing union $defs/%s", member, union)
	}
	ref := "#" + load.DefPointer(def)
	at := len(list.Items)
	for i, br := range list.Items {
		r := refTarget(br)
		if r == nil {
			continue
		}
		if r.String == ref {
			return nil
		}
		name, _ := load.RefName(r.String)
		target := a.def(name)
		if at == len(list.Items) && target != nil && get(target, "x-method") == nil {
			at = i
		}
	}
	br := &load.Node{Kind: load.Object, Members: []load.Member{
		{Name: "title", Value: str(def)},
		{Name: "allOf", Value: &load.Node{Kind: load.Array, Items: []*load.Node{{Kind: load.Object, Members: []load.Member{{Name: "$ref", Value: str(ref)}}}}}},
	}}
	list.Items = slices.Insert(list.Items, at, br)
	mark(u, id)
	return nil
}

// routingList finds the anyOf listing the defs a routing union carries under
// member ("params" or "result"), however deeply upstream nests it.
func routingList(u *load.Node, member string) *load.Node {
	var found *load.Node
	var walk func(n *load.Node)
	branches := func(n *load.Node) {
		var inner func(n *load.Node)
		inner = func(n *load.Node) {
			l := get(n, "anyOf")
			if l == nil || found != nil {
				return
			}
			for _, br := range l.Items {
				if refTarget(br) != nil {
					found = l
					return
				}
			}
			for _, br := range l.Items {
				inner(br)
			}
		}
		inner(n)
	}
	walk = func(n *load.Node) {
		if n == nil || n.Kind != load.Object || found != nil {
			return
		}
		if p := get(get(n, "properties"), member); p != nil {
			branches(p)
			return
		}
		for _, k := range []string{"anyOf", "oneOf", "allOf"} {
			if l := get(n, k); l != nil {
				for _, it := range l.Items {
					walk(it)
				}
			}
		}
	}
	walk(u)
	return found
}

func (a *applier) meta(c *Change) error {
	member := c.Member
	if member == "" {
		member = "_meta"
	}
	for _, def := range c.Defs {
		lbl := label(c, def)
		if c.Label == "" {
			lbl = fmt.Sprintf("meta %s.%s[%q]", def, member, c.Namespace)
		}
		d, err := a.target(c, def, lbl)
		if err != nil {
			return err
		}
		if d == nil {
			continue
		}
		prop := get(get(d, "properties"), member)
		if prop == nil {
			return a.fail("target $defs/%s has no member %q in %s", def, member, a.baseFile)
		}
		ptr := load.DefPointer(def) + "/properties/" + jsonpointer.Escape(member) + "/x-acpgen-meta/" + jsonpointer.Escape(c.Namespace)
		if same, msg := a.claim(ptr, c.schema); msg != "" {
			a.status(lbl, Conflict, ptr, msg)
			continue
		} else if same != "" {
			a.status(lbl, Upstream, ptr, fmt.Sprintf("the same change as overlay %q", same))
			continue
		}
		ns := get(prop, "x-acpgen-meta")
		if ns == nil {
			ns = &load.Node{Kind: load.Object}
			set(prop, "x-acpgen-meta", ns)
		}
		if prev := get(ns, c.Namespace); prev != nil {
			if canon(prev) != canon(c.schema) {
				a.status(lbl, Conflict, ptr, "the namespace is already typed differently")
			} else {
				a.status(lbl, Upstream, ptr, "")
			}
			continue
		}
		set(ns, c.Namespace, clone(c.schema))
		mark(prop, a.provID(c))
		a.status(lbl, Added, ptr, "")
	}
	return nil
}

// errorCodes writes a vendor's codes as an integer enum of titled consts,
// which the IR turns into constants of the vendor's own type.
func (a *applier) errorCodes(c *Change) error {
	l := &load.Node{Kind: load.Array}
	for _, ec := range c.Codes {
		br := &load.Node{Kind: load.Object, Members: []load.Member{
			{Name: "title", Value: str(ec.Title)},
			{Name: "type", Value: str("integer")},
			{Name: "format", Value: str("int32")},
			{Name: "const", Value: &load.Node{Kind: load.Number, Number: jsonInt(ec.Code)}},
		}}
		if ec.Wire != "" {
			set(br, "description", str(ec.Wire))
		}
		l.Items = append(l.Items, br)
	}
	if c.Open {
		l.Items = append(l.Items, &load.Node{Kind: load.Object, Members: []load.Member{
			{Name: "title", Value: str("Other")}, {Name: "type", Value: str("integer")}, {Name: "format", Value: str("int32")},
		}})
	}
	n := &load.Node{Kind: load.Object, Members: []load.Member{{Name: "anyOf", Value: l}}}
	return a.addDef(c, c.Def, n, c.Def)
}

// roots and filter change no schema: they give generated helpers their
// meaning, so they only check that their members exist.
func (a *applier) roots(c *Change) error {
	for _, def := range c.Defs {
		d := a.def(def)
		if d == nil {
			if slices.Contains(c.SkipIfAbsent, def) {
				continue
			}
			return a.fail("target $defs/%s does not exist in %s", def, a.baseFile)
		}
		for _, m := range []string{c.Primary, c.Additional} {
			if get(get(d, "properties"), m) == nil {
				return a.fail("roots: $defs/%s has no member %q in %s", def, m, a.baseFile)
			}
		}
		a.res.Semantics.Roots = append(a.res.Semantics.Roots, facts.Roots{Def: def, Primary: c.Primary, Additional: c.Additional, Source: a.doc.ID})
	}
	return nil
}

func (a *applier) filter(c *Change) error {
	for _, def := range []string{c.Request, c.Item} {
		d := a.def(def)
		if d == nil {
			return a.fail("target $defs/%s does not exist in %s", def, a.baseFile)
		}
		for _, m := range c.Members {
			if get(get(d, "properties"), m.Name) == nil {
				return a.fail("filter: $defs/%s has no member %q in %s", def, m.Name, a.baseFile)
			}
		}
	}
	a.res.Semantics.Filters = append(a.res.Semantics.Filters, facts.Filter{Request: c.Request, Item: c.Item, Members: filterMembers(c.Members), Source: a.doc.ID})
	return nil
}

func jsonInt(i int64) json.Number { return json.Number(fmt.Sprint(i)) }

func filterMembers(ms []FilterMember) []facts.FilterMember {
	out := make([]facts.FilterMember, len(ms))
	for i, m := range ms {
		out[i] = facts.FilterMember{Name: m.Name, Match: m.Match}
	}
	return out
}
