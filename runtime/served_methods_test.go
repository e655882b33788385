package runtime

import "slices"

// ServedMethods are the names of the request methods s answers, core and
// extension, sorted: what the external tests hold their tables of methods
// against, so that a method added without a row there fails them.
func ServedMethods(s *Server) []string {
	t := *s.d.methods.Load()
	names := make([]string, 0, len(t))
	for name := range t {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}
