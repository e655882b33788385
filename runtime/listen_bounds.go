package runtime

import "net/http"

// admitListen counts one more open subscriptions/listen stream, the
// 2026-07-28 counterpart of the GET stream, against Options.MaxGETStreams
// and its caller's share of it; the caller releases it with release when
// the stream ends. Past the bound it refuses with HTTP 429: the server is
// healthy and serves every other request, the client (or too many clients)
// opens too many streams and should come back later. Not 409 either:
// nothing conflicts. Unlike a GET stream, a listen stream needs no session,
// so without this bound a client could open them without end.
func (s *Server) admitListen(caller string) (release func(), refused *outcome) {
	if e := s.streams.take(caller, 1); e != nil {
		return nil, &outcome{status: http.StatusTooManyRequests, err: e}
	}
	return func() { s.streams.give(caller, 1) }, nil
}
