package generator

// featureType is what a feature declares: a prompt, a resource or a
// resource template.
type featureType int

const (
	kindPrompt featureType = iota
	kindResource
	kindTemplate
)

func (k featureType) String() string {
	return [...]string{"prompt", "resource", "resource template"}[k]
}
