package generator

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/dave/jennifer/jen"
)

const (
	runtimePkg = "github.com/mcpgen/mcpgen/runtime"
	jsonPkg    = "encoding/json"
)

// commentWidth is where comment text wraps: about 100 columns with the
// "// " in front and a tab of indentation.
const commentWidth = 92

// comment adds doc lines to a group, each as its own // line, long ones
// wrapped at word boundaries.
func comment(lines ...string) jen.Code {
	s := jen.Null()
	var wrapped []string
	for _, l := range lines {
		wrapped = append(wrapped, wrapLine(l, commentWidth)...)
	}
	for i, l := range wrapped {
		if i > 0 {
			s.Line()
		}
		if l == "" {
			s.Comment("//")
		} else {
			s.Comment("// " + l)
		}
	}
	return s
}

// wrapLine breaks a line of text at spaces so that no piece is longer than
// width runes, unless a single word is. Indented lines (code blocks and lists
// in a doc comment) are kept whole.
func wrapLine(l string, width int) []string {
	if utf8.RuneCountInString(l) <= width || strings.HasPrefix(l, " ") || strings.HasPrefix(l, "\t") {
		return []string{l}
	}
	var out []string
	var cur strings.Builder
	n := 0
	for _, w := range strings.Fields(l) {
		wn := utf8.RuneCountInString(w)
		if n > 0 && n+1+wn > width {
			out = append(out, cur.String())
			cur.Reset()
			n = 0
		}
		if n > 0 {
			cur.WriteByte(' ')
			n++
		}
		cur.WriteString(w)
		n += wn
	}
	return append(out, cur.String())
}

// docWith is a doc comment: a first sentence, then the schema's own lines.
func docWith(first string, lines []string) jen.Code {
	all := []string{first}
	if len(lines) > 0 {
		all = append(all, "")
		all = append(all, lines...)
	}
	return comment(all...)
}

// typeExpr writes a Go type expression.
func typeExpr(t *typeRef) *jen.Statement {
	switch t.kind {
	case refNamed, refBuiltin:
		return jen.Id(t.name)
	case refTime:
		return jen.Qual("time", "Time")
	case refRaw:
		return jen.Qual(jsonPkg, "RawMessage")
	case refSlice:
		return jen.Index().Add(typeExpr(t.elem))
	case refMap:
		return jen.Map(jen.String()).Add(typeExpr(t.elem))
	case refPtr:
		return jen.Op("*").Add(typeExpr(t.elem))
	case refOptional:
		return jen.Qual(runtimePkg, "Optional").Types(typeExpr(t.elem))
	}
	panic(fmt.Sprintf("typeExpr: unknown kind %d", t.kind))
}

// emitDecl writes one declaration and its methods.
func emitDecl(f *jen.File, d decl) {
	switch d := d.(type) {
	case *structDecl:
		emitStruct(f, d)
	case *enumDecl:
		emitEnum(f, d)
	case *unionDecl:
		emitUnion(f, d)
	}
}

func emitStruct(f *jen.File, d *structDecl) {
	f.Add(docWith(fmt.Sprintf("%s is %s.", d.name, d.origin), d.doc))
	f.Type().Id(d.name).StructFunc(func(g *jen.Group) {
		for _, fl := range d.fields {
			if len(fl.doc) > 0 {
				g.Add(comment(fl.doc...))
			}
			typ := typeExpr(fl.typ)
			if fl.ptr {
				typ = jen.Op("*").Add(typ)
			}
			tag := fl.jsonName
			switch {
			case fl.omitempty:
				tag += ",omitempty"
			case fl.omitzero:
				tag += ",omitzero"
			}
			g.Id(fl.goName).Add(typ).Tag(map[string]string{"json": tag})
		}
	})
	if !d.hasDefaults() {
		return
	}
	f.Comment("// UnmarshalJSON fills in the schema's defaults for absent properties.")
	body := []jen.Code{
		jen.Type().Id("plain").Id(d.name),
		jen.Id("p").Op(":=").Id("plain").Values(jen.DictFunc(func(dict jen.Dict) {
			for _, fl := range d.fields {
				switch {
				case fl.def == nil || fl.def.raw != "":
				case fl.def.konst != "":
					dict[jen.Id(fl.goName)] = jen.Id(fl.def.konst)
				default:
					dict[jen.Id(fl.goName)] = lit(fl.def.value)
				}
			}
		})),
	}
	// Array, object and time defaults are decoded only for absent properties,
	// so that a given map or object is not merged into the default.
	first := true
	for _, fl := range d.fields {
		if fl.def == nil || fl.def.raw == "" {
			continue
		}
		if first {
			first = false
			body = append(body,
				jen.Var().Id("present").Map(jen.String()).Qual(jsonPkg, "RawMessage"),
				jen.If(jen.Err().Op(":=").Qual(jsonPkg, "Unmarshal").Call(jen.Id("b"), jen.Op("&").Id("present")), jen.Err().Op("!=").Nil()).Block(
					jen.Return(jen.Err()),
				))
		}
		body = append(body, jen.If(jen.List(jen.Id("_"), jen.Id("ok")).Op(":=").Id("present").Index(jen.Lit(fl.jsonName)), jen.Op("!").Id("ok")).Block(
			jen.If(jen.Err().Op(":=").Qual(jsonPkg, "Unmarshal").Call(jen.Index().Byte().Call(jen.Lit(fl.def.raw)), jen.Op("&").Id("p").Dot(fl.goName)), jen.Err().Op("!=").Nil()).Block(
				jen.Return(jen.Qual("fmt", "Errorf").Call(jen.Lit("the default of "+fl.jsonName+": %w"), jen.Err())),
			),
		))
	}
	body = append(body,
		jen.If(jen.Err().Op(":=").Qual(jsonPkg, "Unmarshal").Call(jen.Id("b"), jen.Op("&").Id("p")), jen.Err().Op("!=").Nil()).Block(
			jen.Return(jen.Err()),
		),
		jen.Op("*").Id("v").Op("=").Id(d.name).Call(jen.Id("p")),
		jen.Return(jen.Nil()),
	)
	f.Func().Params(jen.Id("v").Op("*").Id(d.name)).Id("UnmarshalJSON").Params(jen.Id("b").Index().Byte()).Error().Block(body...)
}

// lit writes a scalar literal that fits any numeric field type.
func lit(v any) jen.Code {
	if i, ok := v.(int64); ok {
		return jen.Lit(int(i))
	}
	return jen.Lit(v)
}

func emitEnum(f *jen.File, d *enumDecl) {
	f.Add(docWith(fmt.Sprintf("%s is %s: one of the constants below.", d.name, d.origin), d.doc))
	f.Type().Id(d.name).Id(d.base)
	f.Commentf("// The values of %s.", d.name)
	f.Const().DefsFunc(func(g *jen.Group) {
		for _, v := range d.values {
			c := fmt.Sprintf("// %s is %s.", v.constName, jsonLit(v.value))
			if v.title != "" {
				c = fmt.Sprintf("// %s is %s (shown as %q).", v.constName, jsonLit(v.value), v.title)
			}
			g.Comment(c)
			g.Id(v.constName).Id(d.name).Op("=").Add(lit(v.value))
		}
	})
	f.Comment("// Valid reports whether v is one of the values the schema allows.")
	f.Func().Params(jen.Id("v").Id(d.name)).Id("Valid").Params().Bool().Block(
		jen.Switch(jen.Id("v")).Block(
			jen.CaseFunc(func(g *jen.Group) {
				for _, v := range d.values {
					g.Id(v.constName)
				}
			}).Block(jen.Return(jen.True())),
		),
		jen.Return(jen.False()),
	)
	verb := "%v"
	if d.base == "string" {
		verb = "%q"
	}
	f.Comment("// UnmarshalJSON accepts only the values the schema allows.")
	f.Func().Params(jen.Id("v").Op("*").Id(d.name)).Id("UnmarshalJSON").Params(jen.Id("b").Index().Byte()).Error().Block(
		jen.Var().Id("x").Id(d.base),
		jen.If(jen.Err().Op(":=").Qual(jsonPkg, "Unmarshal").Call(jen.Id("b"), jen.Op("&").Id("x")), jen.Err().Op("!=").Nil()).Block(
			jen.Return(jen.Err()),
		),
		jen.If(jen.Op("!").Id(d.name).Call(jen.Id("x")).Dot("Valid").Call()).Block(
			jen.Return(jen.Qual("fmt", "Errorf").Call(jen.Lit(verb+" is not a valid "+d.name), jen.Id("x"))),
		),
		jen.Op("*").Id("v").Op("=").Id(d.name).Call(jen.Id("x")),
		jen.Return(jen.Nil()),
	)
}

// jsonLit shows a value as JSON would, for comments.
func jsonLit(v any) string {
	if s, ok := v.(string); ok {
		return fmt.Sprintf("%q", s)
	}
	return fmt.Sprint(v)
}

func emitUnion(f *jen.File, d *unionDecl) {
	f.Add(docWith(fmt.Sprintf("%s is %s: exactly one of its fields is set, chosen by %q.", d.name, d.origin, d.prop), d.doc))
	f.Type().Id(d.name).StructFunc(func(g *jen.Group) {
		for _, v := range d.variants {
			g.Commentf("// %s is set when %q is %q.", v.field, d.prop, v.value)
			g.Id(v.field).Op("*").Add(typeExpr(v.typ))
		}
	})
	f.Comment("// MarshalJSON writes the variant that is set, with its discriminator.")
	f.Func().Params(jen.Id("u").Id(d.name)).Id("MarshalJSON").Params().Params(jen.Index().Byte(), jen.Error()).Block(
		jen.Switch().BlockFunc(func(g *jen.Group) {
			for _, v := range d.variants {
				body := []jen.Code{jen.Id("v").Op(":=").Op("*").Id("u").Dot(v.field)}
				if v.discField != "" {
					body = append(body, jen.Id("v").Dot(v.discField).Op("=").Lit(v.value))
				}
				body = append(body, jen.Return(jen.Qual(jsonPkg, "Marshal").Call(jen.Id("v"))))
				g.Case(jen.Id("u").Dot(v.field).Op("!=").Nil()).Block(body...)
			}
		}),
		jen.Return(jen.Nil(), jen.Qual("errors", "New").Call(jen.Lit(d.name+": no variant is set"))),
	)
	f.Comment("// UnmarshalJSON decodes the variant the discriminator names.")
	f.Func().Params(jen.Id("u").Op("*").Id(d.name)).Id("UnmarshalJSON").Params(jen.Id("b").Index().Byte()).Error().Block(
		jen.Var().Id("d").Struct(jen.Id("Value").String().Tag(map[string]string{"json": d.prop})),
		jen.If(jen.Err().Op(":=").Qual(jsonPkg, "Unmarshal").Call(jen.Id("b"), jen.Op("&").Id("d")), jen.Err().Op("!=").Nil()).Block(
			jen.Return(jen.Err()),
		),
		jen.Op("*").Id("u").Op("=").Id(d.name).Values(),
		jen.Switch(jen.Id("d").Dot("Value")).BlockFunc(func(g *jen.Group) {
			for _, v := range d.variants {
				g.Case(jen.Lit(v.value)).Block(
					jen.Id("u").Dot(v.field).Op("=").New(typeExpr(v.typ)),
					jen.Return(jen.Qual(jsonPkg, "Unmarshal").Call(jen.Id("b"), jen.Id("u").Dot(v.field))),
				)
			}
		}),
		jen.Return(jen.Qual("fmt", "Errorf").Call(jen.Lit(d.name+": unknown "+d.prop+" %q"), jen.Id("d").Dot("Value"))),
	)
}
