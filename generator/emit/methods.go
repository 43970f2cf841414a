package emit

import (
	"fmt"

	"github.com/acpgen/acpgen/generator/ir"
	"github.com/dave/jennifer/jen"
)

// TestPath is the test-support package the generated tests call; it is
// public, so they compile in any module.
const TestPath = "github.com/acpgen/acpgen/acpgentest"

// TestSchemaFile is where, relative to a generated package, the generator
// writes the merged schema the package was generated from, for its tests.
const TestSchemaFile = "testdata/schema.json"

// MethodConst is ir.MethodConst, the one naming rule of method constants.
func MethodConst(wire string) string { return ir.MethodConst(wire) }

func (e *emitter) methodsFile(f *jen.File) {
	var consts []jen.Code
	seen := map[string]bool{}
	for _, m := range e.m.Methods {
		name := MethodConst(m.Wire)
		if seen[name] {
			continue // a wire name that is both a request and a notification
		}
		seen[name] = true
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
			jen.Id("Descriptor").Op("*").Qual(DispatchPath, "Method"))
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
			d[jen.Id("Descriptor")] = methodRef(m)
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
			defs[jen.Lit(t.Def)] = jen.Qual(TestPath, "For").Index(jen.Id(t.Name)).Call(e.tableExpr(t))
		}
	}
	f.Comment("defs holds the test hooks of each $defs entry by name.")
	f.Var().Id("defs").Op("=").Map(jen.String()).Qual(TestPath, "Def").Values(defs)
	f.Line()

	schema := jen.Dict{
		jen.Id("Channel"): jen.Lit(e.m.Channel),
		jen.Id("Path"):    jen.Lit(TestSchemaFile),
		jen.Id("SHA256"):  jen.Lit(e.o.TestSchemaSHA256),
	}
	f.Comment("schema is the merged schema (overlays applied, descriptions left out) this")
	f.Comment("package was generated from, which acpgen generate writes beside it.")
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
