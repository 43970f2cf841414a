package emit

import (
	"testing"

	"github.com/acpgen/acpgen/generator/ir"
)

// coldModel is a chain of embedded unions as ACP's elicitation request has:
// union holder tagged by "k" holds struct embedding as a variant;
// embedding embeds a union told apart by shape whose payload is leaf. other
// is a struct that embeds a union holding embedding too.
type coldModel struct {
	holder, embedding, leaf, other *ir.Type
}

func newColdModel() coldModel {
	named := func(t *ir.Type) *ir.Ref { return &ir.Ref{Kind: ir.Named, Type: t} }
	leaf := &ir.Type{Name: "Leaf", Kind: ir.Struct}
	embedding := &ir.Type{Name: "Embedding", Kind: ir.Struct, Union: &ir.Union{Name: "EmbeddingScope", Variants: []*ir.Variant{
		{Name: "Leaf", Role: ir.Shape, Keys: []string{"leaf"}, Payload: named(leaf), Object: true},
	}}}
	holder := &ir.Type{Name: "Holder", Kind: ir.ObjectUnion, Union: &ir.Union{Name: "Holder", Discriminator: "k", Variants: []*ir.Variant{
		{Name: "Embedding", Role: ir.Tagged, Tag: "e", Payload: named(embedding), Object: true},
	}}}
	other := &ir.Type{Name: "Other", Kind: ir.Struct, Union: &ir.Union{Name: "OtherMode", Discriminator: "k", Variants: []*ir.Variant{
		{Name: "Embedding", Role: ir.Tagged, Tag: "e", Payload: named(embedding), Object: true},
	}}}
	return coldModel{holder: holder, embedding: embedding, leaf: leaf, other: other}
}

func (c coldModel) emitter() *emitter {
	return &emitter{m: &ir.Model{Types: []*ir.Type{c.holder, c.embedding, c.leaf, c.other}}}
}

// TestColdSetNested: a struct embedding a union is cold while it is held as
// a variant only when every holder is cold; a hot holder keeps it
// generated, and that in turn keeps generated every union holding it.
func TestColdSetNested(t *testing.T) {
	c := newColdModel()
	e := c.emitter()
	if !e.cold(c.embedding) || !e.cold(c.other) || !e.coldUnion(c.holder) || !e.cold(c.leaf) {
		t.Errorf("nothing hot: colds %v, cold unions %v", e.colds, e.coldUnions)
	}

	c = newColdModel()
	c.holder.Hot = true
	e = c.emitter()
	if e.cold(c.embedding) || e.coldUnion(c.holder) || !e.cold(c.leaf) {
		t.Errorf("hot holder: colds %v, cold unions %v", e.colds, e.coldUnions)
	}
	if e.cold(c.other) {
		t.Error("a struct whose embedded union holds a generated payload is cold")
	}

	c = newColdModel()
	c.other.Hot = true
	e = c.emitter()
	if e.cold(c.embedding) || e.coldUnion(c.holder) || e.cold(c.other) {
		t.Errorf("hot embedding holder: colds %v, cold unions %v", e.colds, e.coldUnions)
	}
}
