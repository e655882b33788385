package runtime

import "net/http"

// admitListen counts one more open subscriptions/listen stream, the
// 2026-07-28 counterpart of the GET stream, against Options.MaxGETStreams;
// the caller releases it with release when the stream ends. Past the bound
// it refuses with HTTP 429, for the reasons admitGETStream gives. Unlike a
// GET stream, a listen stream needs no session, so without this bound a
// client could open them without end.
func (s *Server) admitListen() (release func(), refused *outcome) {
	if !s.admitGETStream() {
		o := outcome{status: http.StatusTooManyRequests, err: NewError(CodeInvalidRequest,
			"too many streams open on this server (Options.MaxGETStreams); try again later")}
		return nil, &o
	}
	return func() { s.getStreams.Add(-1) }, nil
}
