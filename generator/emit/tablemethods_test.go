package emit_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"testing"
)

// A type reached through its table keeps only the methods a Go user calls
// (MarshalJSON, UnmarshalJSON, Validate and the union and enum API): the
// runtime, dispatch and the generated tests decode, encode and validate it
// through the table, so it declares no DecodeJSON, AppendJSON or
// ValidateWith.
func TestTableTypesKeepOnlyUserMethods(t *testing.T) {
	files := generateBase(t)
	tabled := map[string]bool{}
	methods := map[string][]string{}
	for _, name := range []string{"codec.go", "validate.go", "extras.go"} {
		src, ok := files["acp/"+name]
		if !ok {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.GenDecl:
				for _, s := range d.Specs {
					if vs, ok := s.(*ast.ValueSpec); ok && tableKind(vs.Names[0].Name) != "" && len(vs.Values) == 1 {
						if typ := tableType(vs.Values[0]); typ != "" {
							tabled[typ] = true
						}
					}
				}
			case *ast.FuncDecl:
				if d.Recv != nil {
					recv := receiverName(d.Recv.List[0].Type)
					methods[recv] = append(methods[recv], d.Name.Name)
				}
			}
		}
	}
	if len(tabled) == 0 {
		t.Fatal("no type has a table")
	}
	for typ := range tabled {
		for _, m := range methods[typ] {
			switch m {
			case "DecodeJSON", "AppendJSON", "ValidateWith":
				t.Errorf("%s has a table and a %s method", typ, m)
			}
		}
	}
}

// tableType is T of a table literal's Type: (*T)(nil) member, "" for none.
func tableType(x ast.Expr) string {
	lit, ok := x.(*ast.CompositeLit)
	if !ok {
		return ""
	}
	for _, el := range lit.Elts {
		kv, ok := el.(*ast.KeyValueExpr)
		if !ok || kv.Key.(*ast.Ident).Name != "Type" {
			continue
		}
		if c, ok := kv.Value.(*ast.CallExpr); ok {
			if p, ok := c.Fun.(*ast.ParenExpr); ok {
				return receiverName(p.X)
			}
		}
	}
	return ""
}

// receiverName is T of a receiver or pointer type T or *T.
func receiverName(x ast.Expr) string {
	if s, ok := x.(*ast.StarExpr); ok {
		x = s.X
	}
	if id, ok := x.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}
