package fleet

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/rollnet/rollnet/internal/fleetkv"
)

// PlacePath is the placement endpoint on a signaling server: a client
// POSTs a Request as JSON and reads a Reply.
const PlacePath = "/fleet/match"

// ViewPath is the fleet's JSON view (GET), on a signaling server and on a
// host's -metrics address.
const ViewPath = "/fleet"

// maxRequest is the most bytes of a Request read; a longer body is
// refused (400).
const maxRequest = 1024

// Request asks for a match of Game in Room (a name the players agree on:
// the first request places the room's match on a host, the next ones join
// it until it is full) for a client of Version.
type Request struct {
	Game    string `json:"game"`
	Room    string `json:"room"`
	Version string `json:"version"`
}

// Validate checks r's fields (ErrBadRequest).
func (r Request) Validate() error {
	switch {
	case !fleetkv.ValidName(r.Game, fleetkv.MaxName):
		return fmt.Errorf("%w: game %q: want 1 to %d letters, digits, '-' or '_'", ErrBadRequest, r.Game, fleetkv.MaxName)
	case !fleetkv.ValidName(r.Room, fleetkv.MaxRoom):
		return fmt.Errorf("%w: room %q: want 1 to %d letters, digits, '-' or '_'", ErrBadRequest, r.Room, fleetkv.MaxRoom)
	case !fleetkv.ValidVersion(r.Version):
		return fmt.Errorf("%w: version %q: want 1 to %d letters, digits, '-', '_' or '.'", ErrBadRequest, r.Version, fleetkv.MaxName)
	}
	return nil
}

// parseRequest reads one Request of at most maxRequest bytes from body.
func parseRequest(body io.Reader) (Request, error) {
	b, err := io.ReadAll(io.LimitReader(body, maxRequest+1))
	if err != nil {
		return Request{}, fmt.Errorf("%w: %v", ErrBadRequest, err)
	}
	if len(b) > maxRequest {
		return Request{}, fmt.Errorf("%w: over %d bytes", ErrBadRequest, maxRequest)
	}
	var r Request
	if err := json.Unmarshal(b, &r); err != nil {
		return Request{}, fmt.Errorf("%w: %v", ErrBadRequest, err)
	}
	return r, r.Validate()
}

// Reply is a placement: where to go and the token to show there. On a
// refusal only Error is set.
type Reply struct {
	Host         string `json:"host,omitempty"` // the host's id
	Room         string `json:"room,omitempty"`
	QUIC         string `json:"quic,omitempty"`         // HOST:PORT to dial
	WebTransport string `json:"webtransport,omitempty"` // the URL a browser opens
	SHA256       string `json:"sha256,omitempty"`       // the certificate's hash to pin, hex
	// Grant is the connect token and its key (connecttoken.Grant.String),
	// for this client only, valid until Expires (Unix s).
	Grant   string `json:"grant,omitempty"`
	Expires int64  `json:"expires,omitempty"`
	// Joined is true when the room's match was already placed (this
	// client joins it), false when this request placed it.
	Joined bool   `json:"joined,omitempty"`
	Error  string `json:"error,omitempty"`
}

// statusOf is the HTTP status of a placement error.
func statusOf(err error) int {
	switch {
	case errors.Is(err, ErrBadRequest):
		return 400 // Bad Request
	case errors.Is(err, ErrVersion), errors.Is(err, ErrRoomFull):
		return 409 // Conflict
	case errors.Is(err, ErrBusy):
		return 429 // Too Many Requests
	}
	return 503 // Service Unavailable
}
