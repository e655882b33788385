package generator

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/dave/jennifer/jen"
)

// commentWidth is where comment text wraps: about 100 columns with the
// "// " in front and a tab of indentation.
const commentWidth = 92

// comment adds doc lines to a group, each as its own // line, long ones
// wrapped at word boundaries.
func comment(lines ...string) jen.Code {
	s := jen.Null()
	var wrapped []string
	inList := false
	for _, l := range lines {
		indent := len(l) - len(strings.TrimLeft(l, " "))
		switch {
		case listItemRE.MatchString(l):
			inList = true
			wrapped = append(wrapped, wrapLine(l, commentWidth)...)
		case inList && indent > 0:
			// The text of a list item, continued on its own indented line.
			for _, w := range wrapLine(strings.TrimLeft(l, " "), commentWidth-indent) {
				wrapped = append(wrapped, strings.Repeat(" ", indent)+w)
			}
		default:
			inList = false
			wrapped = append(wrapped, wrapLine(l, commentWidth)...)
		}
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

// listItemRE matches a list item of a description: its indentation and
// marker ("- ", "* ", "1. ").
var listItemRE = regexp.MustCompile(`^( *)([-*+]|[0-9]{1,3}[.)]) `)

// wrapLine breaks a line of text at spaces so that no piece is longer than
// width runes, unless a single word is. A list item's continuation lines are
// indented under its text, which keeps it one item in a doc comment; other
// indented lines (code blocks) are kept whole.
func wrapLine(l string, width int) []string {
	if utf8.RuneCountInString(l) <= width || strings.HasPrefix(l, "\t") {
		return []string{l}
	}
	lead, cont := "", ""
	if m := listItemRE.FindStringSubmatch(l); m != nil {
		lead = m[0]
		cont = strings.Repeat(" ", len(m[1])+len(m[2])+1)
	} else if strings.HasPrefix(l, " ") {
		return []string{l}
	}
	var out []string
	var cur strings.Builder
	cur.WriteString(lead)
	n, start := utf8.RuneCountInString(lead), utf8.RuneCountInString(lead)
	for _, w := range linkWords(strings.Fields(l[len(lead):])) {
		wn := utf8.RuneCountInString(w)
		if n > start && n+1+wn > width {
			out = append(out, cur.String())
			cur.Reset()
			cur.WriteString(cont)
			n, start = len(cont), len(cont)
		}
		if n > start {
			cur.WriteByte(' ')
			n++
		}
		cur.WriteString(w)
		n += wn
	}
	return append(out, cur.String())
}

// linkWords joins the words of a Markdown link ("[file", "object](url)")
// so that wrapping does not split its text.
func linkWords(ws []string) []string {
	var out []string
	for i := 0; i < len(ws); i++ {
		w := ws[i]
		if strings.HasPrefix(w, "[") && !strings.Contains(w, "]") {
			j := i + 1
			for j < len(ws) && !strings.Contains(ws[j], "]") && j-i < 8 {
				j++
			}
			if j < len(ws) && strings.Contains(ws[j], "](") {
				w = strings.Join(ws[i:j+1], " ")
				i = j
			}
		}
		out = append(out, w)
	}
	return out
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
func typeExpr(t *typeRef) *jen.Statement { return qualifiedType(t, "") }

// qualifiedType writes a Go type expression seen from another package (the
// typed test client): the generated package's own types are qualified with
// its import path, pkgPath ("" from inside it).
func qualifiedType(t *typeRef, pkgPath string) *jen.Statement {
	switch t.kind {
	case refNamed:
		if pkgPath != "" {
			return jen.Qual(pkgPath, t.name)
		}
		return jen.Id(t.name)
	case refBuiltin:
		return jen.Id(t.name)
	case refTime:
		return jen.Qual("time", "Time")
	case refRaw:
		return jen.Qual(jsonPkg, "RawMessage")
	case refSlice:
		return jen.Index().Add(qualifiedType(t.elem, pkgPath))
	case refMap:
		return jen.Map(jen.String()).Add(qualifiedType(t.elem, pkgPath))
	case refPtr:
		return jen.Op("*").Add(qualifiedType(t.elem, pkgPath))
	case refOptional:
		return jen.Qual(runtimePkg, "Optional").Types(qualifiedType(t.elem, pkgPath))
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
	case *choiceDecl:
		emitChoice(f, d)
	}
}

func emitStruct(f *jen.File, d *structDecl) {
	f.Add(docWith(fmt.Sprintf("%s is %s.", d.name, d.origin), d.doc))
	f.Type().Id(d.name).StructFunc(func(g *jen.Group) {
		for _, fl := range d.fields {
			doc := fl.doc
			if fl.nonNil {
				if len(doc) > 0 {
					doc = append(append([]string(nil), doc...), "")
				}
				doc = append(doc, "The schema requires "+emptyPhrase(fl)+": nil goes out as "+emptyValue(fl)+".")
			}
			if len(doc) > 0 {
				g.Add(comment(doc...))
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
	emitNonNil(f, d)
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

// emitNonNil writes the MarshalJSON of a struct with required slices or
// maps, which sends a nil one as [] or {}: encoding/json writes null, which
// the schema refuses (in a tool's output, the runtime's output check, and
// in an answer to a form or a tool's arguments, the server's validation).
// It changes a copy of the value, never the caller's.
func emitNonNil(f *jen.File, d *structDecl) {
	fields := d.nonNilFields()
	if len(fields) == 0 {
		return
	}
	var names []string
	for _, fl := range fields {
		names = append(names, fl.goName)
	}
	f.Add(comment(fmt.Sprintf("MarshalJSON sends a nil %s as %s, which the schema requires.", orList(names), emptyList(fields))))
	body := []jen.Code{jen.Type().Id("plain").Id(d.name)}
	for _, fl := range fields {
		body = append(body, jen.If(jen.Id("v").Dot(fl.goName).Op("==").Nil()).Block(
			jen.Id("v").Dot(fl.goName).Op("=").Add(typeExpr(fl.typ)).Values(),
		))
	}
	body = append(body, jen.Return(jen.Qual(jsonPkg, "Marshal").Call(jen.Id("plain").Call(jen.Id("v")))))
	f.Func().Params(jen.Id("v").Id(d.name)).Id("MarshalJSON").Params().Params(jen.Index().Byte(), jen.Error()).Block(body...)
}

// emptyPhrase and emptyValue say what a nonNil field holds when empty.
func emptyPhrase(fl *field) string {
	if fl.typ.kind == refMap {
		return "an object"
	}
	return "an array"
}

func emptyValue(fl *field) string {
	if fl.typ.kind == refMap {
		return "{}"
	}
	return "[]"
}

// emptyList is "[]", "{}" or "[] or {}" for fields.
func emptyList(fields []*field) string {
	seen := map[string]bool{}
	var out []string
	for _, fl := range fields {
		if v := emptyValue(fl); !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return strings.Join(out, " or ")
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
			quoted := make([]string, len(v.values))
			for i, x := range v.values {
				quoted[i] = fmt.Sprintf("%q", x)
			}
			g.Commentf("// %s is set when %q is %s.", v.field, d.prop, strings.Join(quoted, " or "))
			g.Id(v.field).Op("*").Add(typeExpr(v.typ))
		}
	})
	f.Comment("// MarshalJSON writes the variant that is set, with its discriminator.")
	f.Func().Params(jen.Id("u").Id(d.name)).Id("MarshalJSON").Params().Params(jen.Index().Byte(), jen.Error()).Block(
		jen.Switch().BlockFunc(func(g *jen.Group) {
			for _, v := range d.variants {
				body := []jen.Code{jen.Id("v").Op(":=").Op("*").Id("u").Dot(v.field)}
				if v.discField != "" {
					body = append(body, jen.Id("v").Dot(v.discField).Op("=").Lit(v.values[0]))
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
				var vals []jen.Code
				for _, x := range v.values {
					vals = append(vals, jen.Lit(x))
				}
				g.Case(vals...).Block(
					jen.Id("u").Dot(v.field).Op("=").New(typeExpr(v.typ)),
					jen.Return(jen.Qual(jsonPkg, "Unmarshal").Call(jen.Id("b"), jen.Id("u").Dot(v.field))),
				)
			}
		}),
		jen.Return(jen.Qual("fmt", "Errorf").Call(jen.Lit(d.name+": unknown "+d.prop+" %q"), jen.Id("d").Dot("Value"))),
	)
}

// kindPhrase says which JSON values select a choice field, for its comment.
func (c choiceField) kindPhrase() string {
	switch {
	case c.kind == "number" && c.typ.String() == "int64":
		return "a JSON integer"
	case c.kind == "array" || c.kind == "object":
		if c.key != "" {
			return fmt.Sprintf("a JSON object with the key %q", c.key)
		}
		return "a JSON " + c.kind
	}
	return "a JSON " + c.kind
}

// nilable reports whether the field of a choice is the type itself (slices
// and maps have nil) rather than a pointer to it.
func (c choiceField) nilable() bool { return !c.typ.pointerable() }

func emitChoice(f *jen.File, d *choiceDecl) {
	var keyed, rest []choiceField
	for _, c := range d.fields {
		if c.kind == "object" && c.key != "" {
			keyed = append(keyed, c)
		} else if c.kind == "object" {
			rest = append(rest, c)
		}
	}
	how := "the kind of the JSON value"
	if len(keyed) > 0 {
		how += " and, for an object, the keys it holds"
	}
	f.Add(docWith(fmt.Sprintf("%s is %s: exactly one of its fields is set, chosen by %s.", d.name, d.origin, how), d.doc))
	f.Type().Id(d.name).StructFunc(func(g *jen.Group) {
		for _, c := range d.fields {
			first := fmt.Sprintf("%s is set when the value is %s.", c.field, c.kindPhrase())
			if c.kind == "object" && c.key == "" && len(keyed) > 0 {
				first = fmt.Sprintf("%s is set when the value is a JSON object that none of the keys above selects.", c.field)
			}
			g.Add(docWith(first, c.doc))
			typ := typeExpr(c.typ)
			if !c.nilable() {
				typ = jen.Op("*").Add(typ)
			}
			g.Id(c.field).Add(typ)
		}
	})
	f.Comment("// MarshalJSON writes the field that is set.")
	f.Func().Params(jen.Id("u").Id(d.name)).Id("MarshalJSON").Params().Params(jen.Index().Byte(), jen.Error()).Block(
		jen.Switch().BlockFunc(func(g *jen.Group) {
			for _, c := range d.fields {
				g.Case(jen.Id("u").Dot(c.field).Op("!=").Nil()).Block(
					jen.Return(jen.Qual(jsonPkg, "Marshal").Call(jen.Id("u").Dot(c.field))),
				)
			}
		}),
		jen.Return(jen.Nil(), jen.Qual("errors", "New").Call(jen.Lit(d.name+": no field is set"))),
	)
	decode := func(c choiceField) []jen.Code {
		if c.nilable() {
			return []jen.Code{jen.Return(jen.Qual(jsonPkg, "Unmarshal").Call(jen.Id("b"), jen.Op("&").Id("u").Dot(c.field)))}
		}
		return []jen.Code{
			jen.Id("u").Dot(c.field).Op("=").New(typeExpr(c.typ)),
			jen.Return(jen.Qual(jsonPkg, "Unmarshal").Call(jen.Id("b"), jen.Id("u").Dot(c.field))),
		}
	}
	var kinds []string
	for _, c := range d.fields {
		if !slices.Contains(kinds, c.kind) {
			kinds = append(kinds, c.kind)
		}
	}
	firstByte := map[string][]jen.Code{
		"string": {jen.LitRune('"')}, "boolean": {jen.LitRune('t'), jen.LitRune('f')},
		"array": {jen.LitRune('[')}, "object": {jen.LitRune('{')},
	}
	hasNumber := false
	for _, c := range d.fields {
		hasNumber = hasNumber || c.kind == "number"
	}
	var otherKind jen.Code = jen.Null()
	if !hasNumber {
		otherKind = jen.Return(jen.Qual("fmt", "Errorf").Call(jen.Lit(d.name+": a JSON value other than "+strings.Join(kinds, ", ")+": %.40s"), jen.Id("v")))
	}
	f.Comment("// UnmarshalJSON decodes the field that the kind of the value selects; null sets none.")
	f.Func().Params(jen.Id("u").Op("*").Id(d.name)).Id("UnmarshalJSON").Params(jen.Id("b").Index().Byte()).Error().Block(
		jen.Op("*").Id("u").Op("=").Id(d.name).Values(),
		jen.Id("v").Op(":=").Qual("bytes", "TrimLeft").Call(jen.Id("b"), jen.Lit(" \t\r\n")),
		jen.If(jen.Len(jen.Id("v")).Op("==").Lit(0).Op("||").Id("v").Index(jen.Lit(0)).Op("==").LitRune('n')).Block(jen.Return(jen.Nil())),
		jen.Switch(jen.Id("v").Index(jen.Lit(0))).BlockFunc(func(g *jen.Group) {
			for _, c := range d.fields {
				switch {
				case c.kind == "number":
				case c.kind == "object" && len(keyed) > 0:
				default:
					g.Case(firstByte[c.kind]...).Block(decode(c)...)
				}
			}
			if len(keyed) > 0 {
				body := []jen.Code{
					jen.Var().Id("keys").Map(jen.String()).Qual(jsonPkg, "RawMessage"),
					jen.If(jen.Err().Op(":=").Qual(jsonPkg, "Unmarshal").Call(jen.Id("b"), jen.Op("&").Id("keys")), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err())),
				}
				var names []string
				for _, c := range keyed {
					names = append(names, c.key)
					body = append(body, jen.If(jen.List(jen.Id("_"), jen.Id("ok")).Op(":=").Id("keys").Index(jen.Lit(c.key)), jen.Id("ok")).Block(decode(c)...))
				}
				if len(rest) > 0 {
					body = append(body, decode(rest[0])...)
				} else {
					body = append(body, jen.Return(jen.Qual("errors", "New").Call(jen.Lit(d.name+": the object holds none of the keys "+strings.Join(names, ", ")))))
				}
				g.Case(jen.LitRune('{')).Block(body...)
			}
			if hasNumber {
				for _, c := range d.fields {
					if c.kind == "number" {
						g.Default().Block(decode(c)...)
					}
				}
			}
		}),
		otherKind,
	)
}

// jsonText writes JSON text (a definition, a schema) as a Go string
// literal: a raw one, which reads as the JSON does, when the text allows it
// (no backquote, no carriage return, which a raw literal drops, and nothing
// but printable characters, newlines and tabs, so that no control or
// bidirectional formatting character hides in it); else a quoted one.
func jsonText(s string) jen.Code {
	if rawSafe(s) {
		return jen.Op("`" + s + "`")
	}
	return jen.Lit(s)
}

func rawSafe(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if r == '`' || r != '\n' && r != '\t' && !strconv.IsPrint(r) {
			return false
		}
	}
	return true
}
