package wire

import (
	"slices"
	"strconv"
	"strings"
)

// UnknownVariant keeps a variant of a closed tagged union whose tag this
// version of the schema does not know (a newer peer's session update kind,
// content block type, ...). Lenient decoding keeps such a variant instead of
// failing the whole message, and encoding writes it back with all its
// members; Validate reports it, so it is never sent by mistake. Strict
// decoding rejects it.
type UnknownVariant struct {
	// Tag is the discriminator's value.
	Tag string
	// Fields are the variant's other members, in input order. For a union
	// embedded in a struct they are kept in the struct's Unknown instead.
	Fields Fields
}

// AppendFields appends the tag member (named discriminator) and the kept
// members, comma separated; comma says whether a member was written before.
func (u *UnknownVariant) AppendFields(b []byte, discriminator string, comma bool) ([]byte, bool) {
	if comma {
		b = append(b, ',')
	}
	b = AppendString(b, discriminator)
	b = append(b, ':')
	b = AppendString(b, u.Tag)
	return u.Fields.AppendMembers(b, true)
}

// UnknownVariant reports a variant whose tag (the value of member
// discriminator) this version does not know, unless the Validator accepts
// them (AcceptUnknown: a lenient check of a received message). known says
// the tag is one this version models: then the value should use its variant.
func (v *Validator) UnknownVariant(discriminator, tag string, known bool) {
	switch {
	case known:
		v.AddAt(discriminator, "is a known "+discriminator+"; set its variant instead of Unknown")
	case !v.AcceptUnknown:
		v.AddAt(discriminator, "unknown "+discriminator+" "+strconv.Quote(tag)+": this version of the schema does not define it")
	}
}

// Variants reports a union that does not have exactly one variant set.
// names lists its variants, comma separated, and set says for each whether
// it is set; one more flag after them is the Unknown variant of a closed union. Such a value cannot be encoded: MarshalJSON refuses it with an
// *EncodeError.
func (v *Validator) Variants(union, names string, set ...bool) {
	all := strings.Split(names, ", ")
	var on []string
	for i, s := range set {
		switch {
		case !s:
		case i < len(all):
			on = append(on, all[i])
		default: // the Unknown variant of a closed union, not one to choose
			on = append(on, "Unknown")
		}
	}
	reason := "no variant of " + union + " is set (one of " + names + ")"
	if len(on) > 0 {
		reason = "more than one variant of " + union + " is set (" + strings.Join(on, ", ") + ")"
	}
	v.Add(reason)
	v.unencodable = append(v.unencodable, v.errs[len(v.errs)-1])
}

// EncodeErr returns the violations that make the value impossible to encode
// (see Variants) as an *EncodeError naming typ, or nil.
func (v *Validator) EncodeErr(typ string) error {
	if len(v.unencodable) == 0 {
		return nil
	}
	return &EncodeError{Type: typ, Violations: slices.Clone(v.unencodable)}
}

// EncodeError reports a value that cannot be encoded because a union in it
// has no variant or several set. Encoding it would write a message the peer
// cannot read (an empty object, or only the first variant).
type EncodeError struct {
	Type       string // the Go type being encoded
	Violations []Violation
}

func (e *EncodeError) Error() string {
	return "cannot encode " + e.Type + ": " + (&ValidationError{Violations: e.Violations}).Error()
}

// LocalError is a message this side refused to send because it failed this
// side's own checks: it is invalid (a *ValidationError), or it uses a
// capability the peer did not advertise (a *GateError). It is a bug of this
// side, not of the peer: a request handler that returns it answers the peer
// -32603 internal error, never invalid params. Unwrap gives the cause.
type LocalError struct {
	Method string // the method that was not sent
	What   string // what was refused: "params" or "result"
	Err    error
}

func (e *LocalError) Error() string {
	return e.Method + ": " + e.What + " not sent, rejected locally: " + e.Err.Error()
}

// Unwrap returns the *ValidationError or *GateError.
func (e *LocalError) Unwrap() error { return e.Err }

// RPCError answers the peer -32603: the fault is this side's.
func (e *LocalError) RPCError() *RPCError {
	return &RPCError{Code: CodeInternalError, Message: "Internal error: " + e.Method + " " + e.What + " rejected by the sender's own checks"}
}
