package runtime

import "context"

// A legacy session belongs to the principal whose token created it
// (SessionState.Principal). Possession of a session ID is not
// authentication: a request of another principal naming it is answered as
// for an unknown session (404), so a leaked ID neither works nor confirms
// that the session exists. Without Options.Auth both keys are empty and
// every session matches.

// lookupSession finds the session id of the caller's principal, or
// ErrSessionNotFound.
func (s *Server) lookupSession(ctx context.Context, id string) (*session, error) {
	sess, err := s.findSession(ctx, id)
	if err != nil {
		return nil, err
	}
	return s.callersSession(ctx, sess)
}

// callersSession returns sess if it is the caller's principal's, or
// ErrSessionNotFound.
func (s *Server) callersSession(ctx context.Context, sess *session) (*session, error) {
	sess.mu.Lock()
	owner := sess.state.Principal
	sess.mu.Unlock()
	if owner != principalKeyOf(ctx) {
		if p := PrincipalFromContext(ctx); p != nil {
			s.logger.Warn("session of another principal refused", "subject", p.Subject)
		}
		return nil, ErrSessionNotFound
	}
	return sess, nil
}
