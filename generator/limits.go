package generator

// Limits bound what one generation reads, so that an input taken from a
// server its user does not control (a tools/list dump, a skill folder)
// gives a located error instead of a generation that runs for minutes or
// writes gigabytes. Within them generation time and output size grow
// linearly with the input. docs/bounds.md lists them with their reasons.
// Each field's 0 takes the default.
type Limits struct {
	// MaxInputBytes bounds one JSON input file; 0 means 4 MiB, sixteen
	// times the largest tools/list of the corpus of public servers.
	MaxInputBytes int
	// MaxDepth bounds how deep arrays and objects nest in a JSON input
	// file, the file's own levels (a tools/list result, its array, the
	// tool) included; 0 means 128, five times the deepest schema of the
	// corpus.
	MaxDepth int
	// MaxSchemaNodes bounds the subschemas of one schema document (an
	// inputSchema, outputSchema or requestedSchema; each property is one,
	// and so is every object or array inside it); 0 means 5,000, four
	// times the largest schema of the corpus. The JSON Schema compiler the
	// generator and the runtime share takes time that grows with the
	// square of this count.
	MaxSchemaNodes int
	// MaxFrontmatterBytes bounds a SKILL.md's YAML frontmatter, both as
	// written and as the JSON its skills/list entry carries (where every
	// YAML alias is written out); 0 means 64 KiB, far more than the Agent
	// Skills fields need.
	MaxFrontmatterBytes int
	// MaxFrontmatterAliases bounds the YAML aliases (*name) written out
	// while a frontmatter becomes JSON, each counted every time it is
	// reached; 0 means 100. Nine levels of ten aliases (a 636-byte "alias
	// bomb") would otherwise write out a billion values.
	MaxFrontmatterAliases int
}

// The defaults of Limits.
const (
	defaultMaxInputBytes         = 4 << 20
	defaultMaxDepth              = 128
	defaultMaxSchemaNodes        = 5000
	defaultMaxFrontmatterBytes   = 64 << 10
	defaultMaxFrontmatterAliases = 100
)

// withDefaults returns l with every 0 replaced by its default.
func (l Limits) withDefaults() Limits {
	set := func(v *int, def int) {
		if *v <= 0 {
			*v = def
		}
	}
	set(&l.MaxInputBytes, defaultMaxInputBytes)
	set(&l.MaxDepth, defaultMaxDepth)
	set(&l.MaxSchemaNodes, defaultMaxSchemaNodes)
	set(&l.MaxFrontmatterBytes, defaultMaxFrontmatterBytes)
	set(&l.MaxFrontmatterAliases, defaultMaxFrontmatterAliases)
	return l
}
