package generator

// inputKinds are the kinds of input, new values for each generation. This
// is the one place a kind is registered: Generate, the package emitter and
// ReadPaths know only the list. Its order is the order of the package's
// parts: the build steps run in it (elicitations first, since tools,
// prompts and resources ask for them by name), and Handler, Register and
// the test client list each part's share in it.
func inputKinds() []inputKind {
	return []inputKind{
		&elicitationKind{},
		&toolKind{},
		&featureKind{},
		&pageKind{},
		&skillKind{},
		&eventKind{},
	}
}
