package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"iter"
	"strconv"
)

// encodeStreamed writes what a json.Encoder indenting by two spaces writes
// for whole(), but from doc, whose one array under key (or doc itself, for
// key "") is empty, with the elements encoded one at a time in that
// array's place: a report of a hundred thousand findings is never held as
// one document, nor as its text.
func encodeStreamed[T any](w io.Writer, doc any, key string, escapeHTML bool, elems iter.Seq[T], whole func() any) error {
	var head bytes.Buffer
	enc := json.NewEncoder(&head)
	enc.SetEscapeHTML(escapeHTML)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return err
	}
	// Inside a JSON string a quote is escaped, so only the key itself
	// matches; should it not be there exactly once, encode it whole.
	text := head.Bytes()
	marker := []byte(strconv.Quote(key) + ": []")
	if key == "" {
		marker = []byte("[]")
	}
	at := bytes.Index(text, marker)
	if at < 0 || bytes.Count(text, marker) != 1 {
		return encode(w, whole(), escapeHTML)
	}
	open := at + len(marker) - 1 // the "]" of "[]"
	indent := string(text[bytes.LastIndexByte(text[:at], '\n')+1 : at])
	bw := bufio.NewWriterSize(w, 64<<10)
	_, _ = bw.Write(text[:open])
	var one bytes.Buffer
	elemEnc := json.NewEncoder(&one)
	elemEnc.SetEscapeHTML(escapeHTML)
	elemEnc.SetIndent(indent+"  ", "  ")
	n := 0
	for e := range elems {
		one.Reset()
		if err := elemEnc.Encode(e); err != nil {
			return err
		}
		if n > 0 {
			_ = bw.WriteByte(',')
		}
		_, _ = bw.WriteString("\n" + indent + "  ")
		_, _ = bw.Write(bytes.TrimSuffix(one.Bytes(), []byte("\n")))
		n++
	}
	if n > 0 {
		_, _ = bw.WriteString("\n" + indent)
	}
	_, _ = bw.Write(text[open:])
	return bw.Flush()
}

func encode(w io.Writer, doc any, escapeHTML bool) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(escapeHTML)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}
