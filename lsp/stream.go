package lsp

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"

	"go.lsp.dev/jsonrpc2"
)

// MaxMessage is the largest message the server reads. A 50 MB buffer sent
// whole (didOpen, a full didChange) fits with its JSON escapes; a larger
// one is skipped unread and answered with an error, so a client cannot
// make the server allocate what it declares.
const MaxMessage = 64 << 20

// maxHeaderLines bounds the header block; LSP sends one or two.
const maxHeaderLines = 16

var (
	// errTooLarge is a frame over MaxMessage, skipped: the stream goes on.
	errTooLarge = errors.New("message too large")
	// errHeader is a header block that cannot be read; nothing after it
	// can be trusted to start a frame, so the stream ends.
	errHeader = errors.New("invalid message header")
)

// readFrame reads one LSP base-protocol frame (headers, a blank line, then
// Content-Length bytes of body) and returns the body. It never allocates
// more than max bytes for a body, nor more than the reader's buffer for a
// header line.
func readFrame(r *bufio.Reader, max int) ([]byte, error) {
	length := int64(-1)
	for lines := 0; ; lines++ {
		line, err := r.ReadSlice('\n')
		if err != nil {
			if errors.Is(err, io.EOF) && lines == 0 && len(line) == 0 {
				return nil, io.EOF
			}
			if errors.Is(err, io.EOF) {
				return nil, io.ErrUnexpectedEOF
			}
			return nil, fmt.Errorf("%w: %w", errHeader, err)
		}
		if lines >= maxHeaderLines {
			return nil, fmt.Errorf("%w: more than %d header lines", errHeader, maxHeaderLines)
		}
		line = bytes.TrimRight(line, "\r\n")
		if len(line) == 0 {
			break
		}
		name, value, ok := bytes.Cut(line, []byte(":"))
		if !ok {
			return nil, fmt.Errorf("%w: %q has no colon", errHeader, line)
		}
		if !bytes.EqualFold(bytes.TrimSpace(name), []byte("Content-Length")) {
			continue // Content-Type and anything newer
		}
		n, err := strconv.ParseInt(string(bytes.TrimSpace(value)), 10, 64)
		if err != nil || n < 0 {
			return nil, fmt.Errorf("%w: Content-Length %q", errHeader, bytes.TrimSpace(value))
		}
		length = n
	}
	if length < 0 {
		return nil, fmt.Errorf("%w: no Content-Length", errHeader)
	}
	if length > int64(max) {
		// Skip the body so that the next frame is read where it starts.
		if _, err := io.CopyN(io.Discard, r, length); err != nil {
			return nil, io.ErrUnexpectedEOF
		}
		return nil, fmt.Errorf("%w: %d bytes, the limit is %d", errTooLarge, length, max)
	}
	body := make([]byte, length)
	if _, err := io.ReadFull(r, body); err != nil {
		return nil, io.ErrUnexpectedEOF
	}
	return body, nil
}

// stream is jsonrpc2.Stream over the LSP framing with readFrame: a frame
// too large or a body that is not JSON-RPC is answered with an error and
// the next frame is read, where jsonrpc2's own framing would end the
// connection (and allocate up to 1 GiB for a declared length).
type stream struct {
	in      *bufio.Reader
	out     io.Writer
	closer  io.Closer
	max     int
	writeMu sync.Mutex
}

func newStream(in io.Reader, out io.Writer, closer io.Closer) *stream {
	return &stream{in: bufio.NewReader(in), out: out, closer: closer, max: MaxMessage}
}

func (s *stream) Read(ctx context.Context) (jsonrpc2.Message, int64, error) {
	for {
		if err := ctx.Err(); err != nil {
			return nil, 0, err
		}
		body, err := readFrame(s.in, s.max)
		switch {
		case errors.Is(err, errTooLarge):
			s.reject(jsonrpc2.InvalidRequest, err)
			continue
		case err != nil:
			return nil, 0, err
		}
		msg, err := jsonrpc2.DecodeMessage(body)
		if err != nil {
			code := jsonrpc2.InvalidRequest
			if errors.Is(err, jsonrpc2.ErrParse) {
				code = jsonrpc2.ParseError
			}
			s.reject(code, err)
			continue
		}
		return msg, int64(len(body)), nil
	}
}

// reject answers a message that could not be read; its id is unknown, so
// the response has none (null), as JSON-RPC says.
func (s *stream) reject(code jsonrpc2.Code, err error) {
	_, _ = s.Write(context.Background(), jsonrpc2.NewResponse(jsonrpc2.ID{}, nil, jsonrpc2.NewError(code, err.Error())))
}

func (s *stream) Write(ctx context.Context, msg jsonrpc2.Message) (int64, error) {
	data, err := jsonrpc2.EncodeMessage(msg)
	if err != nil {
		return 0, err
	}
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	buf := make([]byte, 0, len(data)+32)
	buf = append(buf, "Content-Length: "...)
	buf = strconv.AppendInt(buf, int64(len(data)), 10)
	buf = append(buf, "\r\n\r\n"...)
	buf = append(buf, data...)
	n, err := s.out.Write(buf)
	return int64(n), err
}

func (s *stream) Close() error {
	if s.closer != nil {
		return s.closer.Close()
	}
	return nil
}
