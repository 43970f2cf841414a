package emit

import (
	"fmt"

	"github.com/acpgen/acpgen/generator/ir"
	. "github.com/dave/jennifer/jen"
)

// TestPath is the test-support package the generated tests call; it is
// public, so they compile in any module.
const TestPath = "github.com/acpgen/acpgen/acpgentest"

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
	if e.m.Version != nil {
		f.Comment("CurrentProtocolVersion is the protocol version this package speaks, sent in initialize.")
		f.Const().Id("CurrentProtocolVersion").Id(e.m.Version.Type.Name).Op("=").Lit(e.o.ProtocolVersion)
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

// defsTest emits the round-trip and differential tests: the test hooks of
// every $defs entry, and where the schema they are checked against is.
func (e *emitter) defsTest(f *File) {
	defs := Dict{}
	for _, t := range e.m.Types {
		if t.Def != "" {
			defs[Lit(t.Def)] = Qual(TestPath, "For").Index(Id(t.Name)).Call()
		}
	}
	f.Comment("defs holds the test hooks of each $defs entry by name.")
	f.Var().Id("defs").Op("=").Map(String()).Qual(TestPath, "Def").Values(defs)
	f.Line()
	schema := Dict{
		Id("Channel"): Lit(e.m.Channel),
		Id("File"):    Id("SchemaFile"),
		Id("SHA256"):  Id("SchemaSHA256"),
	}
	comment := []string{"schema is the schema this package was generated from"}
	switch {
	case e.o.NoSchema != "":
		schema[Id("Unavailable")] = Lit(e.o.NoSchema)
		comment = append(comment, "(the generator could not say where it is, so the tests fail).")
	case e.o.SchemaVersion != "":
		schema[Id("Package")] = Id("SchemaPackage")
		schema[Id("Version")] = Id("SchemaVersion")
		comment = append(comment, "(a published release, read from acpgen's schema cache).")
	default:
		schema[Id("Path")] = Lit(e.o.SchemaPath)
		comment = append(comment, "(a file, relative to this folder).")
	}
	if len(e.o.OverlayFiles) > 0 {
		var files []Code
		for _, f := range e.o.OverlayFiles {
			files = append(files, Lit(f))
		}
		schema[Id("Overlays")] = Index().String().Values(files...)
		comment = append(comment, "The tests apply the overlays as generation did.")
	}
	for _, c := range comment {
		f.Comment(c)
	}
	f.Var().Id("schema").Op("=").Qual(TestPath, "Schema").Values(schema)
	f.Line()
	cfg := Qual(TestPath, "Config").Values(Dict{Id("Schema"): Id("schema"), Id("Defs"): Id("defs")})
	f.Func().Id("TestRoundTrip").Params(Id("t").Op("*").Qual("testing", "T")).Block(
		Qual(TestPath, "RoundTrip").Call(Id("t"), cfg),
	)
	f.Line()
	f.Func().Id("TestDifferential").Params(Id("t").Op("*").Qual("testing", "T")).Block(
		Qual(TestPath, "Differential").Call(Id("t"), cfg.Clone()),
	)
}
