package runtime

// serveNotification handles a client notification of a legacy session.
func (s *Server) serveNotification(sess *session, msg *message) {
	switch msg.Method {
	case methodInitialized:
		if err := sess.update(sess.ctx, func(st *SessionState) { st.Initialized = true }); err != nil {
			s.logger.Warn("saving the session", "session", sess.id, "error", err)
		}
	case methodCancelled:
		if id := msg.params().RequestID; validID(id) {
			sess.cancelInflight(id)
		}
	}
}

// serveAnswer hands a client's response to the server-to-client request it
// answers. Only requests of this session can be answered.
// A store failure is reported as err (the client may retry the answer).
func (s *Server) serveAnswer(sess *session, msg *message) (Resolution, error) {
	res, err := s.pending.Resolve(sess.ctx, sess.id, msg.ID, Answer{Result: msg.Result, Error: msg.Error})
	if err != nil {
		s.logger.Warn("routing an answer", "session", sess.id, "id", string(msg.ID), "error", err)
		return Unknown, err
	}
	if res != Delivered {
		s.logger.Debug("answer refused", "session", sess.id, "id", string(msg.ID), "expired", res == Expired)
	}
	return res, nil
}
