package runtime

import "net/http"

// This file is the seam between the legacy transport and the 2026-07-28
// stateless core. The legacy ServeHTTP asks isModernHTTP for every POST and
// hands modern requests to serveModernHTTP.

// isModernHTTP reports whether a POST belongs to the 2026-07-28 era: no
// session ID and modern _meta (or a modern MCP-Protocol-Version header).
func (s *Server) isModernHTTP(r *http.Request, msg *message) bool {
	return false // replaced by the 2026-07-28 implementation
}

// serveModernHTTP serves one 2026-07-28 POST.
func (s *Server) serveModernHTTP(w http.ResponseWriter, r *http.Request, msg *message) {
	http.Error(w, "2026-07-28 is not served yet", http.StatusNotImplemented)
}
