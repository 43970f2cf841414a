package emit

import (
	"fmt"

	"github.com/acpgen/acpgen/generator/ir"
	. "github.com/dave/jennifer/jen"
)

// RoundtripPath is the test-support package generated tests call.
const RoundtripPath = "github.com/acpgen/acpgen/internal/roundtrip"

// DifferentialPath is the package of the validator's differential test.
const DifferentialPath = "github.com/acpgen/acpgen/internal/differential"

// MethodConst is the Go constant name of a wire method name.
func MethodConst(wire string) string { return "Method" + ir.GoName(wire) }

func (e *emitter) methodsFile(f *File) {
	var consts []Code
	seen := map[string]string{}
	for _, m := range e.m.Methods {
		name := MethodConst(m.Wire)
		if prev, ok := seen[name]; ok {
			if prev != m.Wire {
				panic(fmt.Sprintf("method names %q and %q both map to %s", prev, m.Wire, name))
			}
			continue
		}
		seen[name] = m.Wire
		consts = append(consts, Comment(fmt.Sprintf("%s is the wire name of %s.", name, m.Wire)), Id(name).Op("=").Lit(m.Wire))
	}
	f.Comment("Method wire names.")
	f.Const().Defs(consts...)
	f.Line()
	if e.m.TypeByDef("ProtocolVersion") != nil {
		f.Comment("CurrentProtocolVersion is the protocol version this package speaks, sent in initialize.")
		f.Const().Id("CurrentProtocolVersion").Id("ProtocolVersion").Op("=").Lit(e.o.ProtocolVersion)
		f.Line()
	}
	f.Comment("Provenance of the schema this package was generated from.")
	f.Const().Defs(
		Comment("SchemaPackage is the package the schema was published in."),
		Id("SchemaPackage").Op("=").Lit(e.o.SchemaPackage),
		Comment("SchemaVersion is that package's version."),
		Id("SchemaVersion").Op("=").Lit(e.o.SchemaVersion),
		Comment("SchemaFile is the schema file within the package."),
		Id("SchemaFile").Op("=").Lit(e.o.SchemaFile),
		Comment("SchemaSHA256 is the hex sha256 of the schema file."),
		Id("SchemaSHA256").Op("=").Lit(e.o.SchemaSHA256),
	)
	f.Line()
	f.Comment("MethodInfo describes one method: who handles it and which types it carries.")
	f.Type().Id("MethodInfo").Struct(
		Comment("Wire is the JSON-RPC method name."),
		Id("Wire").String(),
		Comment("Side is the side that handles it: agent, client, protocol or proxy."),
		Id("Side").String(),
		Comment("Notification is true for notifications, which get no response."),
		Id("Notification").Bool(),
		Comment("Params and Result name the Go types of the params and of the result (requests only)."),
		Id("Params").String(),
		Id("Result").String(),
	)
	var rows []Code
	for _, m := range e.m.Methods {
		res := ""
		if m.Result != nil {
			res = m.Result.Name
		}
		rows = append(rows, Values(Dict{
			Id("Wire"): Id(MethodConst(m.Wire)), Id("Side"): Lit(m.Side), Id("Notification"): Lit(m.Notification),
			Id("Params"): Lit(m.Params.Name), Id("Result"): Lit(res),
		}))
	}
	f.Comment("Methods lists every method of this channel, in schema order.")
	f.Var().Id("Methods").Op("=").Index().Id("MethodInfo").Values(rows...)
}

// defsTest emits the registry the round-trip test uses: one codec per $defs entry.
func (e *emitter) defsTest(f *File) {
	var rows []Code
	for _, t := range e.m.Types {
		if t.Def == "" {
			continue
		}
		rows = append(rows, Lit(t.Def).Op(":").Qual(RoundtripPath, "For").Index(Id(t.Name)).Call())
	}
	f.Comment("defs holds the test hooks of each $defs entry by name.")
	f.Var().Id("defs").Op("=").Map(String()).Qual(RoundtripPath, "Def").Values(rows...)
	f.Line()
	d := Dict{Id("Channel"): Lit(e.m.Channel), Id("Defs"): Id("defs")}
	if len(e.o.OverlayFiles) > 0 {
		var files []Code
		for _, f := range e.o.OverlayFiles {
			files = append(files, Lit(f))
		}
		d[Id("Overlays")] = Index().String().Values(files...)
	}
	cfg := Qual(RoundtripPath, "Config").Values(d)
	f.Func().Id("TestRoundTrip").Params(Id("t").Op("*").Qual("testing", "T")).Block(
		Qual(RoundtripPath, "Run").Call(Id("t"), cfg),
	)
	f.Func().Id("TestDifferential").Params(Id("t").Op("*").Qual("testing", "T")).Block(
		Qual(DifferentialPath, "Run").Call(Id("t"), cfg.Clone()),
	)
}
