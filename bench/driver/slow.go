package driver

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// slowConn is a slow client's own keep-alive connection, written and read by
// hand so the pacing is exact: the request goes out a few bytes at a time and
// the response is read a few bytes at a time, delay apart.
type slowConn struct {
	conn net.Conn
	br   *bufio.Reader
}

// slowReader hands out at most 16 bytes per Read, waiting delay first.
type slowReader struct {
	conn  net.Conn
	delay time.Duration
}

func (r slowReader) Read(p []byte) (int, error) {
	time.Sleep(r.delay) // the pacing of a slow client, not synchronisation
	return r.conn.Read(p[:min(len(p), 16)])
}

// slowCallAdd is CallAdd from a slow client: its request trickles in 8-byte
// pieces and its response is read 16 bytes at a time, delay apart each.
func (s *Session) slowCallAdd(ctx context.Context, a int64, delay time.Duration) error {
	if s.slow == nil {
		u, err := url.Parse(s.c.URL)
		if err != nil {
			return err
		}
		var d net.Dialer
		conn, err := d.DialContext(ctx, "tcp", u.Host)
		if err != nil {
			return err
		}
		s.slow = &slowConn{conn: conn, br: bufio.NewReaderSize(slowReader{conn, delay}, 16)}
	}
	sc := s.slow
	fail := func(err error) error {
		sc.conn.Close()
		s.slow = nil
		return err
	}
	deadline, ok := ctx.Deadline()
	if !ok {
		deadline = time.Now().Add(30 * time.Second)
	}
	_ = sc.conn.SetDeadline(deadline)

	id := s.nextID
	s.nextID++
	body := appendAddCall(nil, id, a, "")
	u, _ := url.Parse(s.c.URL)
	head := "POST " + u.RequestURI() + " HTTP/1.1\r\nHost: " + u.Host +
		"\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMcp-Session-Id: " + s.ID +
		"\r\nMcp-Protocol-Version: " + LegacyVersion + "\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n"
	if _, err := sc.conn.Write([]byte(head)); err != nil {
		return fail(err)
	}
	for i := 0; i < len(body); i += 8 {
		select {
		case <-ctx.Done():
			return fail(ctx.Err())
		case <-time.After(delay):
		}
		if _, err := sc.conn.Write(body[i:min(i+8, len(body))]); err != nil {
			return fail(err)
		}
	}
	resp, err := http.ReadResponse(sc.br, nil)
	if err != nil {
		return fail(err)
	}
	res, err := ReadResponse(resp, strconv.AppendInt(nil, id, 10), nil)
	if err != nil {
		return fail(err)
	}
	if resp.Close {
		fail(nil)
	}
	if err := checkSum(res, a+2); err != nil {
		return fmt.Errorf("slow client: %w", err)
	}
	return nil
}
