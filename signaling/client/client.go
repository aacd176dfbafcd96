package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/rollnet/rollnet/signaling/internal/wire"
)

// EventKind says what an Event reports.
type EventKind int

// The events a Client delivers.
const (
	// PeerJoined: Peer entered the room after this client.
	PeerJoined EventKind = iota + 1
	// PeerLeft: Peer left the room (or its connection dropped).
	PeerLeft
	// SignalReceived: Peer sent Signal to this client.
	SignalReceived
	// ServerError: the server refused something this client sent without
	// closing the connection (a signal to Peer, no longer in the room:
	// errors.Is(Err, ErrUnknownPeer)).
	ServerError
)

func (k EventKind) String() string {
	switch k {
	case PeerJoined:
		return "peer-joined"
	case PeerLeft:
		return "peer-left"
	case SignalReceived:
		return "signal"
	case ServerError:
		return "error"
	}
	return fmt.Sprintf("EventKind(%d)", int(k))
}

// Event is one thing the server told this client.
type Event struct {
	Kind   EventKind
	Peer   string // the other peer's server-assigned id
	Signal Signal // for SignalReceived
	Err    error  // for ServerError
}

// Config configures Dial. The zero value is ready to use.
type Config struct {
	// EventQueue is the capacity of the Events channel (default 64). While
	// it is full the client stops reading; a server then eventually drops
	// the client as a slow consumer.
	EventQueue int
	// HTTPClient makes the handshake request: an *http.Client (nil:
	// http.DefaultClient). Its type is any so that this package needs
	// nothing of net/http in a browser, where the page makes the
	// handshake: HTTPClient and HTTPHeader must be nil there, or Dial
	// fails with ErrConfig. Natively any other type fails with ErrConfig.
	HTTPClient any
	// HTTPHeader is added to the handshake request (for example Origin);
	// an http.Header converts to it.
	HTTPHeader map[string][]string
}

// defaultEventQueue is the capacity of Events when Config.EventQueue
// is zero.
const defaultEventQueue = 64

// defaultDialTimeout bounds Dial when its context has no deadline.
const defaultDialTimeout = 30 * time.Second

// joinReadLimit bounds the join reply (many ICE servers fit). After it, the
// client reads at most the server's advertised message size plus
// serverOverhead (a relayed signal is the sender's message with its
// addressee's id replaced by the sender's, and no escaping), and never more
// than maxClientReadLimit, whatever a server advertises.
const (
	joinReadLimit      = 1 << 20
	serverOverhead     = 1 << 10
	maxClientReadLimit = 64 << 20
)

// clientCloseTimeout bounds the close handshake of Client.Close.
const clientCloseTimeout = time.Second

// Client is one joined connection to a signaling server. Its methods are
// safe for concurrent use.
type Client struct {
	ws    conn
	id    string
	room  string
	peers []string
	ice   []ICEServer
	max   int

	evs        chan Event // nil once closed (under mu)
	evsRecv    <-chan Event
	closing    chan struct{} // closed by Close
	done       chan struct{} // closed when the read loop has ended
	cancelRead context.CancelFunc
	closeOnce  sync.Once
	closers    sync.WaitGroup // a close handshake started by the read loop

	mu        sync.Mutex
	known     map[string]int // peers in the room now, and the protocol version each speaks
	err       error
	closingWS bool // a close handshake has begun (by Close or the read loop)
}

// Dial connects to a server URL such as "ws://127.0.0.1:8080/room/NAME" or
// "ws://127.0.0.1:8080/room?next=2" (plus "&token=..." when the server
// requires one; "wss://" for TLS), and returns once the server has assigned
// this client an id (the join reply). ctx bounds the dial and the join only;
// without a deadline, 30 s apply.
//
// A refusal before the upgrade is an *HTTPError (errors.Is with
// ErrUnauthorized, ErrTooManyConnections, ErrServerClosing; HTTP 400 or
// 404 for a URL that names no valid room);
// a refused join is a *CloseError (errors.Is with ErrRoomFull, ...).
func Dial(ctx context.Context, url string, cfg Config) (*Client, error) {
	if cfg.EventQueue < 0 {
		return nil, fmt.Errorf("%w: EventQueue is %d, want >= 0", ErrConfig, cfg.EventQueue)
	}
	if cfg.EventQueue == 0 {
		cfg.EventQueue = defaultEventQueue
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, defaultDialTimeout)
		defer cancel()
	}
	ws, err := dialWebSocket(ctx, url, cfg)
	if err != nil {
		return nil, err
	}
	ws.setReadLimit(joinReadLimit)
	join, err := json.Marshal(wire.Envelope{V: wire.ProtocolVersion, Type: wire.TypeJoin})
	if err == nil {
		err = ws.write(ctx, join)
	}
	var b []byte
	if err == nil {
		b, err = ws.read(ctx)
	}
	if err != nil {
		_ = ws.closeNow()
		if err = connError(err); err == nil {
			err = fmt.Errorf("%w: the server closed the connection before the join reply", ErrClosed)
		}
		var ce *CloseError
		if errors.As(err, &ce) && (ce.Code == wire.CodeMalformed || ce.Code == wire.CodeProtocolVersion) {
			// Our join is well-formed: a server that refuses it does not
			// speak our version (one older than version 2 says 4000).
			err = fmt.Errorf("%w: the server does not speak version %d (an older server?): %w",
				ErrProtocolVersion, wire.ProtocolVersion, err)
		}
		return nil, err
	}
	e, err := wire.ParseEnvelope(b, wire.FromServer)
	if err == nil && e.Type != wire.TypeJoin {
		err = fmt.Errorf("%w: %q message before the join reply", wire.ErrMalformed, e.Type)
	}
	if err == nil && e.V != wire.ProtocolVersion {
		err = fmt.Errorf("%w: join reply in version %d, want %d", wire.ErrMalformed, e.V, wire.ProtocolVersion)
	}
	if err != nil {
		_ = ws.closeNow()
		return nil, err
	}
	ws.setReadLimit(int64(min(e.Max, maxClientReadLimit-serverOverhead) + serverOverhead))
	readCtx, cancel := context.WithCancel(context.Background())
	c := &Client{
		ws:         ws,
		id:         e.ID,
		room:       e.Room,
		peers:      e.Peers,
		ice:        e.ICE,
		max:        e.Max,
		evs:        make(chan Event, cfg.EventQueue),
		closing:    make(chan struct{}),
		done:       make(chan struct{}),
		cancelRead: cancel,
		known:      make(map[string]int, len(e.Peers)),
	}
	c.evsRecv = c.evs
	for i, p := range e.Peers {
		c.known[p] = e.Protocols[i]
	}
	go c.readLoop(readCtx)
	return c, nil
}

func (c *Client) readLoop(ctx context.Context) {
	defer close(c.done)
	for {
		b, err := c.ws.read(ctx)
		if err != nil {
			c.finish(connError(err))
			return
		}
		e, err := wire.ParseEnvelope(b, wire.FromServer)
		if err == nil && e.Type == wire.TypeJoin {
			err = fmt.Errorf("%w: a second join reply", wire.ErrMalformed)
		}
		if err == nil && e.V != wire.ProtocolVersion {
			err = fmt.Errorf("%w: a message in version %d, want %d", wire.ErrMalformed, e.V, wire.ProtocolVersion)
		}
		if err != nil {
			c.mu.Lock()
			started := c.closingWS
			c.closingWS = true
			c.mu.Unlock()
			if started {
				continue // Close is closing; read on to finish the handshake
			}
			c.closers.Add(1)
			go func() {
				defer c.closers.Done()
				_ = c.ws.close(wire.CodeMalformed, wire.ErrMalformed.Error())
			}()
			time.AfterFunc(clientCloseTimeout, c.cancelRead)
			c.finish(err)
			continue // read on to finish the close handshake
		}
		var ev Event
		switch e.Type {
		case wire.TypePeerJoined:
			c.mu.Lock()
			c.known[e.Peer] = e.Protocol
			c.mu.Unlock()
			ev = Event{Kind: PeerJoined, Peer: e.Peer}
		case wire.TypePeerLeft:
			c.mu.Lock()
			delete(c.known, e.Peer)
			c.mu.Unlock()
			ev = Event{Kind: PeerLeft, Peer: e.Peer}
		case wire.TypeSignal:
			ev = Event{Kind: SignalReceived, Peer: e.Peer, Signal: Signal{Kind: e.Kind, Payload: e.Payload}}
		case wire.TypeError:
			err := fmt.Errorf("signaling: server error %s: %s", e.Code, e.Message)
			if e.Code == wire.ErrCodeUnknownPeer {
				err = fmt.Errorf("%w: %s", ErrUnknownPeer, e.Peer)
			}
			ev = Event{Kind: ServerError, Peer: e.Peer, Err: err}
		}
		c.deliver(ev)
	}
}

// deliver queues ev on Events unless the client is closing or has ended.
func (c *Client) deliver(ev Event) {
	c.mu.Lock()
	ended := c.evs == nil
	c.mu.Unlock()
	if ended {
		return
	}
	select {
	case c.evs <- ev:
	case <-c.closing:
	}
}

// finish records why the connection ended and closes Events, once.
func (c *Client) finish(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.evs == nil {
		return
	}
	select {
	case <-c.closing:
		err = nil
	default:
	}
	c.err = err
	close(c.evs)
	c.evs = nil
}

// ID is this client's server-assigned id.
func (c *Client) ID() string { return c.id }

// Room is the name of the room this client joined (generated by the server
// for next=N grouping).
func (c *Client) Room() string { return c.room }

// Peers returns the ids already in the room at join, oldest first (a copy).
func (c *Client) Peers() []string { return append([]string(nil), c.peers...) }

// PeerProtocol is the protocol version the peer with id speaks (1 or 2),
// as the server said at join or in peer-joined; 0 for a peer not in the
// room. A candidate signal to a peer of version 1 must carry one
// candidate (doc.go).
func (c *Client) PeerProtocol(id string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.known[id]
}

// ICEServers returns the ICE servers handed out by the server at join (a copy).
func (c *Client) ICEServers() []ICEServer {
	out := make([]ICEServer, len(c.ice))
	for i, s := range c.ice {
		s.URLs = append([]string(nil), s.URLs...)
		out[i] = s
	}
	return out
}

// Events delivers what the server reports, in order. It is closed when the
// client closes or the connection drops; Err then says why.
func (c *Client) Events() <-chan Event { return c.evsRecv }

// Send relays s to the peer with id to, which must be in this client's room
// (ErrUnknownPeer otherwise). A signal over the server's message size limit
// is refused before sending, as is a kind other than offer, answer or
// candidate or a payload that is not JSON. Cancelling
// ctx during the write closes the connection (a WebSocket message cannot be
// abandoned half-sent).
func (c *Client) Send(ctx context.Context, to string, s Signal) error {
	select {
	case <-c.done:
		return ErrClosed
	case <-c.closing:
		return ErrClosed
	default:
	}
	if !s.Kind.Valid() {
		return fmt.Errorf("%w: kind %q", wire.ErrInvalidSignal, s.Kind)
	}
	if len(s.Payload) == 0 || !json.Valid(s.Payload) || string(s.Payload) == "null" {
		return fmt.Errorf("%w: payload is not a JSON value", wire.ErrInvalidSignal)
	}
	c.mu.Lock()
	_, ok := c.known[to]
	c.mu.Unlock()
	if !ok {
		return fmt.Errorf("%w: %q", ErrUnknownPeer, to)
	}
	if !wire.ValidID(to) {
		return fmt.Errorf("%w: %q", ErrUnknownPeer, to)
	}
	// By hand, so the payload's bytes go as they are (json.Marshal would
	// HTML-escape them).
	b := wire.AppendSignal(make([]byte, 0, wire.SignalOverhead+len(s.Payload)), wire.ProtocolVersion, to, s.Kind, s.Payload)
	if len(b) > c.max {
		return fmt.Errorf("%w: %d bytes, limit %d", wire.ErrMessageTooBig, len(b), c.max)
	}
	if err := c.ws.write(ctx, b); err != nil {
		return fmt.Errorf("%w: %w", ErrClosed, err)
	}
	return nil
}

// Err says why the connection ended, once Events is closed: nil after
// Close or a normal closure, a *CloseError when the server closed it with a
// reason (its Code and Reason; errors.Is with ErrRoomFull, ErrServerClosing,
// ...), otherwise an error wrapping ErrClosed.
func (c *Client) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// Close leaves the room and closes the connection, waiting at most about a
// second for the server to acknowledge. It is idempotent and returns once
// the client's goroutine has ended.
func (c *Client) Close() error {
	c.closeOnce.Do(func() {
		close(c.closing)
		t := time.AfterFunc(clientCloseTimeout, c.cancelRead)
		c.mu.Lock()
		started := c.closingWS
		c.closingWS = true
		c.mu.Unlock()
		if !started {
			_ = c.ws.close(statusNormalClosure, "")
		}
		<-c.done
		c.closers.Wait()
		t.Stop()
		c.cancelRead()
	})
	return nil
}
