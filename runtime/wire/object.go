package wire

// This file is the one decode loop of every generated object type: the
// generated code supplies what differs per type (its member decoder, where
// unknown members go, its required members) and the loop does the rest.

// What a generated member decoder reports besides a required member's slot.
const (
	// Optional: the key is a declared member that is not required.
	Optional = -1
	// NotMember: the key is no declared member; the loop keeps it as unknown.
	NotMember = -2
)

// RequiredWords is how many levels of required members one object tracks:
// the type's own, then one per embedded union nested in it (the generator
// refuses deeper nesting). Each level holds up to 64 required members.
const RequiredWords = 4

// MemberDecoder decodes the value of the member named key into the object
// being decoded (generated code passes the method value v.decodeField, which
// stays on the caller's stack). It returns the member's required slot (64 per
// level: a union embedded in a struct reports its variant's slots with
// [Inner]), [Optional] or [NotMember].
type MemberDecoder func(d *Decoder, key []byte) (int, error)

// Members is what the loop knows of one object type besides its member
// decoder. The zero value (or nil) has no required members and no aliases.
type Members struct {
	// Required names the type's own required members by slot (0, 1, ...).
	Required []string
	// Aliases are the other names of members (nil without any).
	Aliases *Aliases
}

// RequiredOf names the required members of level w (0 the type's own) of an
// object whose required members depend on the variant decoding selected.
type RequiredOf func(w int) []string

// Inner moves the slot a union embedded in a struct reports one level down,
// past the struct's own required members.
func Inner(slot int, err error) (int, error) {
	if slot >= 0 {
		slot += 64
	}
	return slot, err
}

// Level returns names at level 0 and nil below: the required members of a
// variant payload that embeds no union.
func Level(w int, names []string) []string {
	if w == 0 {
		return names
	}
	return nil
}

// DecodeObject decodes one JSON object: every member through member,
// the ones it does not declare kept in sink (dropped when sink is nil), then
// the required members checked. required, when not nil, names them per level
// (a union's, whose variant is selected before the members are read);
// otherwise m.Required does. The seen slots live in this frame and neither
// func escapes, so decoding an object allocates nothing of its own.
func DecodeObject(d *Decoder, sink *Fields, member MemberDecoder, m *Members, required RequiredOf) error {
	if err := d.BeginObject(); err != nil {
		return err
	}
	if m != nil && m.Aliases != nil {
		return decodeAliased(d, sink, member, m, required)
	}
	var seen [RequiredWords]uint64
	for {
		key, ok, err := d.NextKey()
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		slot, err := member(d, key)
		if err == nil && slot == NotMember {
			err = d.KeepUnknown(key, sink)
		}
		if err != nil {
			return err
		}
		mark(&seen, slot)
	}
	return checkRequired(d, &seen, m, required)
}

// maxAliasSlots bounds the members of one type that have aliases; the
// generator refuses more.
const maxAliasSlots = 8

// decodeAliased is DecodeObject's loop for a type whose members have other
// names: aliases are noted as they come and read once the object is done.
func decodeAliased(d *Decoder, sink *Fields, member MemberDecoder, m *Members, required RequiredOf) error {
	var seen [RequiredWords]uint64
	var hits [maxAliasSlots]AliasHit
	a := m.Aliases
	for {
		key, ok, err := d.NextKey()
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		// Aliases come first, so the member's own name is noted before member reads it.
		slot := Optional
		handled, err := a.Take(d, key, hits[:a.Slots()])
		if err == nil && !handled {
			slot, err = member(d, key)
		}
		if err == nil && slot == NotMember {
			err = d.KeepUnknown(key, sink)
		}
		if err != nil {
			return err
		}
		mark(&seen, slot)
	}
	err := a.Resolve(d, hits[:a.Slots()], func(name []byte) (bool, error) {
		slot, err := member(d, name)
		mark(&seen, slot)
		return true, err
	})
	if err != nil {
		return err
	}
	return checkRequired(d, &seen, m, required)
}

// mark notes a required member's slot as seen.
func mark(seen *[RequiredWords]uint64, slot int) {
	if slot >= 0 && slot < RequiredWords*64 {
		seen[slot>>6] |= 1 << (slot & 63)
	}
}

// checkRequired reports the first required member, level by level, that
// decoding did not see.
func checkRequired(d *Decoder, seen *[RequiredWords]uint64, m *Members, required RequiredOf) error {
	for w := range RequiredWords {
		var names []string
		switch {
		case required != nil:
			names = required(w)
		case w == 0 && m != nil:
			names = m.Required
		}
		for i, name := range names {
			if seen[w]&(1<<i) == 0 {
				return d.Errorf("missing required member %q", name)
			}
		}
	}
	return nil
}
