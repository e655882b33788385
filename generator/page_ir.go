package generator

// pagePart is the MCP Apps pages of the package: resources (featureIR)
// with page set.
type pagePart struct {
	pages []*featureIR // in input order
}
