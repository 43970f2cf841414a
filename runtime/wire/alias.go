package wire

import (
	"errors"
	"strings"

	"github.com/acpgen/acpgen/runtime/jsonpointer"
)

// Alias is another JSON name of a member, declared by an overlay for a
// vendor whose peers write it: lenient decoding reads it into the member,
// strict decoding refuses it, encoding never writes it.
type Alias struct {
	Name   string // the other name
	Member string // the member's own JSON name
}

// Aliases is the alias table of one generated type, built once.
//
// Precedence, whatever the order of the object's members (JSON objects are
// unordered): the member's own name wins over every alias, and an alias
// listed earlier wins over one listed later. The losing values are skipped,
// not kept as unknown members, so encoding writes the member's own name only.
type Aliases struct {
	members [][]byte            // each aliased member's own name, by slot
	names   [][]string          // each slot's aliases, in precedence order
	byName  map[string]aliasRef // member and alias names
}

type aliasRef struct{ slot, rank int } // rank 0: the member's name; 1+i: alias i

// AliasHit is what decoding one object has seen of one aliased member: the
// best-ranked name so far and where its value starts. Generated decoders keep
// an array of them on the stack, one per aliased member; the zero value has
// seen nothing.
type AliasHit struct {
	rank int // 0 nothing; 1 the member's own name; 2+i alias i
	at   Mark
}

// NewAliases builds the table of a type's aliases, given in precedence order
// per member. Generated code calls it once per type, with names the
// generator has checked to be distinct from each other and from every member.
func NewAliases(list ...Alias) *Aliases {
	a := &Aliases{byName: map[string]aliasRef{}}
	for _, al := range list {
		ref, ok := a.byName[al.Member]
		if !ok {
			ref = aliasRef{slot: len(a.members)}
			a.byName[al.Member] = ref
			a.members = append(a.members, []byte(al.Member))
			a.names = append(a.names, nil)
		}
		a.names[ref.slot] = append(a.names[ref.slot], al.Name)
		a.byName[al.Name] = aliasRef{slot: ref.slot, rank: len(a.names[ref.slot])}
	}
	return a
}

// Slots is the number of members that have aliases: the length of the
// AliasHit array a decoder of the type keeps.
func (a *Aliases) Slots() int { return len(a.members) }

// Take looks at the key of the member ahead, before the type's own members
// are tried. The member's own name is noted and left to the caller (handled
// is false). An alias is refused when decoding strictly, with an error at
// its pointer naming the member; when lenient, its value is skipped for now
// (handled is true) and Resolve reads it if it wins.
func (a *Aliases) Take(d *Decoder, key []byte, hits []AliasHit) (handled bool, err error) {
	ref, ok := a.byName[string(key)]
	if !ok {
		return false, nil
	}
	h := &hits[ref.slot]
	if ref.rank == 0 {
		h.rank = 1
		return false, nil
	}
	if !d.Lenient() {
		return true, AtKey(d.Errorf("%q is another name of member %q, accepted by lenient decoding only", key, a.members[ref.slot]), string(key))
	}
	if h.rank == 0 || ref.rank+1 < h.rank {
		h.rank, h.at = ref.rank+1, d.Mark()
	}
	return true, d.Skip()
}

// Resolve decodes, once the object has been read, the winning alias of every
// member whose own name was absent, by calling decode with the member's own
// name and the decoder at the alias's value; it leaves the decoder after the
// object. An error points at the alias, where the value is.
func (a *Aliases) Resolve(d *Decoder, hits []AliasHit, decode func(member []byte) (bool, error)) error {
	var end Mark
	moved := false
	for slot := range hits {
		h := &hits[slot]
		if h.rank < 2 {
			continue
		}
		if !moved {
			end, moved = d.Mark(), true
		}
		d.Rewind(h.at)
		if _, err := decode(a.members[slot]); err != nil {
			return rekey(err, string(a.members[slot]), a.names[slot][h.rank-2])
		}
	}
	if moved {
		d.Rewind(end)
	}
	return nil
}

// rekey makes an error the member's decoder reported under its own name
// point at the alias the value came from.
func rekey(err error, member, alias string) error {
	var e *Error
	if !errors.As(err, &e) {
		return err
	}
	from := "/" + jsonpointer.Escape(member)
	if rest, ok := strings.CutPrefix(e.Pointer, from); ok && (rest == "" || rest[0] == '/') {
		e.Pointer = "/" + jsonpointer.Escape(alias) + rest
	}
	return err
}
