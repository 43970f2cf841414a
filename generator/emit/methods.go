package emit

import (
	"fmt"

	"github.com/acpgen/acpgen/generator/ir"
	"github.com/dave/jennifer/jen"
)

// TestPath is the test-support package the generated tests call; it is
// public, so they compile in any module.
const TestPath = "github.com/acpgen/acpgen/acpgentest"

// MethodConst is the Go constant name of a wire method name.
func MethodConst(wire string) string { return "Method" + ir.GoName(wire) }

func (e *emitter) methodsFile(f *jen.File) {
	var consts []jen.Code
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
		consts = append(consts, jen.Comment(fmt.Sprintf("%s is the wire name of %s.", name, m.Wire)), jen.Id(name).Op("=").Lit(m.Wire))
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
		jen.Comment("SchemaPackage is the package the schema was published in."),
		jen.Id("SchemaPackage").Op("=").Lit(e.o.SchemaPackage),
		jen.Comment("SchemaVersion is that package's version."),
		jen.Id("SchemaVersion").Op("=").Lit(e.o.SchemaVersion),
		jen.Comment("SchemaFile is the schema file within the package."),
		jen.Id("SchemaFile").Op("=").Lit(e.o.SchemaFile),
		jen.Comment("SchemaSHA256 is the hex sha256 of the schema file."),
		jen.Id("SchemaSHA256").Op("=").Lit(e.o.SchemaSHA256),
	)
	f.Line()
	f.Comment("MethodInfo describes one method: who handles it and which types it carries.")
	dispatch := e.hasDispatch()
	fields := []jen.Code{
		jen.Comment("Wire is the JSON-RPC method name."),
		jen.Id("Wire").String(),
		jen.Comment("Side is the side that handles it: agent, client, protocol or proxy."),
		jen.Id("Side").String(),
		jen.Comment("Notification is true for notifications, which get no response."),
		jen.Id("Notification").Bool(),
		jen.Comment("Params and Result name the Go types of the params and of the result (requests only)."),
		jen.Id("Params").String(),
		jen.Id("Result").String(),
	}
	if dispatch {
		fields = append(fields,
			jen.Comment("Descriptor is the method's entry in AgentMethods or ClientMethods; nil for a method"),
			jen.Comment("neither side handles."),
			jen.Id("Descriptor").Qual(DispatchPath, "Descriptor"))
	}
	f.Type().Id("MethodInfo").Struct(fields...)
	var rows []jen.Code
	for _, m := range e.m.Methods {
		res := ""
		if m.Result != nil {
			res = m.Result.Name
		}
		d := jen.Dict{
			jen.Id("Wire"): jen.Id(MethodConst(m.Wire)), jen.Id("Side"): jen.Lit(m.Side), jen.Id("Notification"): jen.Lit(m.Notification),
			jen.Id("Params"): jen.Lit(m.Params.Name), jen.Id("Result"): jen.Lit(res),
		}
		if dispatch && (m.Side == "agent" || m.Side == "client") {
			d[jen.Id("Descriptor")] = descriptor(m)
		}
		rows = append(rows, jen.Values(d))
	}
	f.Comment("Methods lists every method of this channel, in schema order.")
	f.Var().Id("Methods").Op("=").Index().Id("MethodInfo").Values(rows...)
}

// defsTest emits the round-trip and differential tests: the test hooks of
// every $defs entry, and where the schema they are checked against is.
func (e *emitter) defsTest(f *jen.File) {
	defs := jen.Dict{}
	for _, t := range e.m.Types {
		if t.Def != "" {
			defs[jen.Lit(t.Def)] = jen.Qual(TestPath, "For").Index(jen.Id(t.Name)).Call()
		}
	}
	f.Comment("defs holds the test hooks of each $defs entry by name.")
	f.Var().Id("defs").Op("=").Map(jen.String()).Qual(TestPath, "Def").Values(defs)
	f.Line()
	schema := jen.Dict{
		jen.Id("Channel"): jen.Lit(e.m.Channel),
		jen.Id("File"):    jen.Id("SchemaFile"),
		jen.Id("SHA256"):  jen.Id("SchemaSHA256"),
	}
	comment := []string{"schema is the schema this package was generated from"}
	switch {
	case e.o.NoSchema != "":
		schema[jen.Id("Unavailable")] = jen.Lit(e.o.NoSchema)
		comment = append(comment, "(the generator could not say where it is, so the tests fail).")
	case e.o.SchemaVersion != "":
		schema[jen.Id("Package")] = jen.Id("SchemaPackage")
		schema[jen.Id("Version")] = jen.Id("SchemaVersion")
		comment = append(comment, "(a published release, read from acpgen's schema cache).")
	default:
		schema[jen.Id("Path")] = jen.Lit(e.o.SchemaPath)
		comment = append(comment, "(a file, relative to this folder).")
	}
	if len(e.o.OverlayFiles) > 0 {
		var files []jen.Code
		for _, f := range e.o.OverlayFiles {
			files = append(files, jen.Lit(f))
		}
		schema[jen.Id("Overlays")] = jen.Index().String().Values(files...)
		comment = append(comment, "The tests apply the overlays as generation did.")
	}
	for _, c := range comment {
		f.Comment(c)
	}
	f.Var().Id("schema").Op("=").Qual(TestPath, "Schema").Values(schema)
	f.Line()
	cfg := jen.Qual(TestPath, "Config").Values(jen.Dict{jen.Id("Schema"): jen.Id("schema"), jen.Id("Defs"): jen.Id("defs")})
	f.Func().Id("TestRoundTrip").Params(jen.Id("t").Op("*").Qual("testing", "T")).Block(
		jen.Qual(TestPath, "RoundTrip").Call(jen.Id("t"), cfg),
	)
	f.Line()
	f.Func().Id("TestDifferential").Params(jen.Id("t").Op("*").Qual("testing", "T")).Block(
		jen.Qual(TestPath, "Differential").Call(jen.Id("t"), cfg.Clone()),
	)
}
