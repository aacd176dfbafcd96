package impair

import "github.com/rollnet/rollnet/transport"

// Prime gives both of t's lines every buffer they can ever need (max+1),
// as a long run under load would: the allocation test counts the steady
// state, not the lines' first high-water marks.
func Prime(tr Transport) {
	t := tr.(*impaired)
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, l := range []*line{&t.lineOut, &t.lineIn} {
		for len(l.free)+len(l.q) < l.max+1 {
			l.free = append(l.free, make([]byte, transport.MaxDatagram))
		}
	}
}

// Inner is the transport t wraps.
func Inner(t Transport) transport.Transport { return t.(*impaired).inner }

// ModelOf is modelOf: a Link in the link model's terms.
var ModelOf = modelOf
