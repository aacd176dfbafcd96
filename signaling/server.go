package signaling

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"

	"github.com/rollnet/rollnet/signaling/internal/turncred"
	"github.com/rollnet/rollnet/signaling/internal/wire"
)

// Server is the signaling server, an http.Handler:
//
//	GET /              {"service":"rollnet-signal","protocol":2,"protocols":[1,2],"status":"ok",...}
//	GET /healthz       200 "ok" (503 once Close has begun)
//	GET /room/NAME     WebSocket: join the room NAME
//	GET /room?next=N   WebSocket: join the room being filled with the next N joiners
//
// Add "token=TOKEN" to the query when the server has a TokenSecret.
// Serve and ServeTLS run it on a listener with the accept-time, header and
// idle limits of its ServerConfig; as an http.Handler (httptest.NewServer,
// an http.Server of the caller's) those limits are the caller's. Close ends
// every connection (an http.Server's own Shutdown does not see hijacked
// WebSockets).
type Server struct {
	cfg ServerConfig
	log *slog.Logger

	mu      sync.Mutex
	closing bool
	active  int // admitted requests, upgraded or about to be
	perAddr map[string]int
	conns   map[*peerConn]struct{}
	ids     map[string]*peerConn
	rooms   map[string]*room
	pending map[int]*room // next=N rooms still filling, by N

	addrJoins     bucketMap      // join attempts per client address
	roomJoins     bucketMap      // join attempts per named room
	roomAddrJoins bucketMap      // joins per named room and address (takeRoomJoin)
	roomAddr      map[string]int // connections for a named room, by room and address

	routes   map[string]http.Handler // added by Handle
	https    []*http.Server          // started by Serve
	nsockets int                     // TCP connections accepted by Serve and open
	sockets  map[netip.Addr]int

	wg sync.WaitGroup // one per admitted request

	stats struct {
		relayed, refused, rejected, malformed, tooBig, rateLimited,
		joinTimeouts, slowConsumers, pingTimeouts, roomFull, acceptRefused, clusterClosed atomic.Uint64
		forwardedIgnored             atomic.Uint64
		relayedBytes, clusterDropped atomic.Uint64
		rejectedBy                   [numRejectReasons]atomic.Uint64
	}
	pairing pairingHistogram
	cluster *cluster // nil: a single instance
}

// Stats is a snapshot of a server's state and counters.
type Stats struct {
	Connections   int    // connections holding a slot (MaxConns): upgrading, open or closing
	Rooms         int    // rooms with at least one peer
	Relayed       uint64 // signals relayed
	Refused       uint64 // signals refused: addressee not in the sender's room
	Rejected      uint64 // requests refused before the upgrade (token, limits, bad URL)
	Malformed     uint64 // connections closed for a malformed message
	TooBig        uint64 // connections closed for a message over MaxMessageSize
	RateLimited   uint64 // connections closed for exceeding the message rate
	JoinTimeouts  uint64 // connections closed for not joining in time
	SlowConsumers uint64 // connections dropped for an overflowing send queue
	PingTimeouts  uint64 // connections closed for not answering a ping
	RoomFull      uint64 // joins refused because the room was full
	Sockets       int    // TCP connections open, accepted by Serve
	AcceptRefused uint64 // TCP connections refused at accept (MaxConnsPerAddr, MaxConns)
	ClusterClosed uint64 // connections closed with code 4006 (client.ErrClusterUnavailable: NATS lost, or a room not placed)
	// ForwardedIgnored counts requests with a Forwarded or
	// X-Forwarded-For header from a peer not in TrustedProxies (the
	// header ignored): a reverse proxy not named, most likely.
	ForwardedIgnored uint64
}

type room struct {
	since   time.Time // when its first member joined
	name    string
	cap     int
	next    int // N for a next=N room, else 0
	members []*peerConn
}

// NewServer returns a server for cfg, or an error wrapping client.ErrConfig.
func NewServer(cfg ServerConfig) (*Server, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	s := &Server{
		cfg:      cfg,
		log:      cfg.Logger,
		perAddr:  make(map[string]int),
		conns:    make(map[*peerConn]struct{}),
		ids:      make(map[string]*peerConn),
		rooms:    make(map[string]*room),
		pending:  make(map[int]*room),
		sockets:  make(map[netip.Addr]int),
		roomAddr: make(map[string]int),
	}
	if cfg.NATS != nil {
		if s.cluster, err = newCluster(s, cfg.NATS, cfg.Cluster); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// Stats returns a snapshot of the server's state and counters.
func (s *Server) Stats() Stats {
	s.mu.Lock()
	st := Stats{Connections: s.active, Rooms: len(s.rooms), Sockets: s.nsockets}
	s.mu.Unlock()
	st.Relayed = s.stats.relayed.Load()
	st.Refused = s.stats.refused.Load()
	st.Rejected = s.stats.rejected.Load()
	st.Malformed = s.stats.malformed.Load()
	st.TooBig = s.stats.tooBig.Load()
	st.RateLimited = s.stats.rateLimited.Load()
	st.JoinTimeouts = s.stats.joinTimeouts.Load()
	st.ForwardedIgnored = s.stats.forwardedIgnored.Load()
	st.SlowConsumers = s.stats.slowConsumers.Load()
	st.PingTimeouts = s.stats.pingTimeouts.Load()
	st.ClusterClosed = s.stats.clusterClosed.Load()
	st.RoomFull = s.stats.roomFull.Load()
	st.AcceptRefused = s.stats.acceptRefused.Load()
	return st
}

// Close closes every connection with 1001 (going away), refuses new ones
// with HTTP 503, and returns once every goroutine the server started has
// ended. It is idempotent.
func (s *Server) Close() error {
	s.mu.Lock()
	first := !s.closing
	s.closing = true
	list := make([]*peerConn, 0, len(s.conns))
	for c := range s.conns {
		list = append(list, c)
	}
	https := s.https
	s.mu.Unlock()
	for _, hs := range https {
		_ = hs.Close() // the listeners and every connection not upgraded
	}
	if first {
		s.log.Info("signaling server closing", "connections", len(list))
	}
	for _, c := range list {
		c.kill(int(websocket.StatusGoingAway), wire.ErrServerClosing)
	}
	s.wg.Wait()
	if s.cluster != nil {
		s.cluster.close()
	}
	return nil
}

// ServeHTTP routes a request: health, version, or a WebSocket join.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch p := r.URL.Path; {
	case p == "/room" || strings.HasPrefix(p, "/room/"):
		s.serveRoom(w, r)
	case p == "/" && r.Method == http.MethodGet:
		s.mu.Lock()
		status, conns, rooms := "ok", len(s.conns), len(s.rooms)
		if s.closing {
			status = "closing"
		}
		s.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(struct {
			Service     string `json:"service"`
			Protocol    int    `json:"protocol"`
			Protocols   []int  `json:"protocols"`
			Status      string `json:"status"`
			Connections int    `json:"connections"`
			Rooms       int    `json:"rooms"`
		}{"rollnet-signal", wire.ProtocolVersion, spokenVersions(), status, conns, rooms})
	case p == "/healthz" && r.Method == http.MethodGet:
		s.mu.Lock()
		closing := s.closing
		s.mu.Unlock()
		if closing {
			http.Error(w, "closing", http.StatusServiceUnavailable)
			return
		}
		_, _ = w.Write([]byte("ok\n"))
	case p == "/readyz" && r.Method == http.MethodGet:
		s.serveReady(w)
	default:
		s.mu.Lock()
		h := s.routes[p]
		s.mu.Unlock()
		if h == nil {
			h = http.NotFoundHandler()
		}
		h.ServeHTTP(w, r)
	}
}

// Handle serves h at the exact path beside the server's own routes (a
// status page of a service run beside it, such as a TURN relay's counts).
// The server's own paths cannot be taken.
func (s *Server) Handle(path string, h http.Handler) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if path == "/" || path == "/healthz" || path == "/readyz" || path == "/room" || strings.HasPrefix(path, "/room/") {
		panic("signaling: Handle: " + path + " is the server's own route")
	}
	if s.routes == nil {
		s.routes = make(map[string]http.Handler)
	}
	s.routes[path] = h
}

// roomRequest is what a join URL asks for: a named room, or next=N.
type roomRequest struct {
	name string
	next int
}

// tokenRequired reports whether q's room requires a join token:
// TokenSecret set, and TokenRooms empty or naming a prefix of the room's
// name (next=N grouping only when TokenRooms is empty).
func (s *Server) tokenRequired(q roomRequest) bool {
	if len(s.cfg.TokenSecret) == 0 {
		return false
	}
	if len(s.cfg.TokenRooms) == 0 {
		return true
	}
	for _, p := range s.cfg.TokenRooms {
		if q.name != "" && strings.HasPrefix(q.name, p) {
			return true
		}
	}
	return false
}

// tokenRoom is the room string a join token is signed for.
func (q roomRequest) tokenRoom() string {
	if q.next > 0 {
		return "next=" + strconv.Itoa(q.next)
	}
	return q.name
}

func (s *Server) parseRoomRequest(r *http.Request) (roomRequest, error) {
	var q roomRequest
	next := r.URL.Query().Get("next")
	if name, ok := strings.CutPrefix(r.URL.Path, "/room/"); ok {
		if !validRoom(name) {
			return q, errors.New("signaling: room name must be 1 to 64 characters of A-Z a-z 0-9 . _ -")
		}
		if next != "" {
			return q, errors.New("signaling: a named room takes no next parameter")
		}
		q.name = name
		return q, nil
	}
	n, err := strconv.Atoi(next)
	if next == "" || err != nil || strconv.Itoa(n) != next || n < 2 || n > s.cfg.MaxRoomSize {
		return q, errors.New("signaling: want /room/NAME or /room?next=N with 2 <= N <= " +
			strconv.Itoa(s.cfg.MaxRoomSize))
	}
	q.next = n
	return q, nil
}

func (s *Server) reject(w http.ResponseWriter, r *http.Request, status int, msg string) {
	s.stats.rejected.Add(1)
	s.stats.rejectedBy[rejectReasonOf(status, msg)].Add(1)
	lvl := slog.LevelInfo
	if status == http.StatusTooManyRequests {
		lvl = slog.LevelDebug // a flood of them would flood the log; Stats counts them
	}
	s.log.Log(r.Context(), lvl, "signaling request refused", "addr", r.RemoteAddr, "path", r.URL.Path,
		"status", status, "reason", msg)
	w.Header().Set("Connection", "close")
	http.Error(w, msg, status)
}

func (s *Server) serveRoom(w http.ResponseWriter, r *http.Request) {
	q, err := s.parseRoomRequest(r)
	if err != nil {
		s.reject(w, r, http.StatusBadRequest, err.Error())
		return
	}
	if s.tokenRequired(q) {
		tok := r.URL.Query().Get("token")
		if tok == "" {
			s.reject(w, r, http.StatusUnauthorized, wire.ErrUnauthorized.Error()+": token required")
			return
		}
		if err := checkToken(s.cfg.TokenSecret, q.tokenRoom(), tok, s.cfg.Now()); err != nil {
			s.reject(w, r, http.StatusForbidden, wire.ErrUnauthorized.Error()+": "+err.Error())
			return
		}
	}
	addr := s.clientAddr(r)
	roomAddr := q.name + "\x00" + addr // for a named room: its connections from addr

	// Admission: counted before the upgrade, released when the handler ends.
	s.mu.Lock()
	switch {
	case s.closing:
		s.mu.Unlock()
		s.reject(w, r, http.StatusServiceUnavailable, wire.ErrServerClosing.Error())
		return
	case s.cluster != nil && !s.cluster.ready():
		s.mu.Unlock()
		s.reject(w, r, http.StatusServiceUnavailable, wire.ErrClusterUnavailable.Error())
		return
	case s.active >= s.cfg.Tuning.MaxConns:
		s.mu.Unlock()
		s.reject(w, r, http.StatusTooManyRequests, wire.ErrTooManyConnections.Error()+": server full")
		return
	case s.perAddr[addr] >= s.cfg.Tuning.MaxConnsPerAddr:
		s.mu.Unlock()
		s.reject(w, r, http.StatusTooManyRequests, wire.ErrTooManyConnections.Error()+" from this address")
		return
	case q.name != "" && !isLoopback(addr) && s.roomAddr[roomAddr] >= s.cfg.MaxMembersPerAddr:
		s.mu.Unlock()
		s.reject(w, r, http.StatusTooManyRequests, wire.ErrTooManyConnections.Error()+" from this address in this room")
		return
	case !isLoopback(addr) && !s.addrJoins.take(addr, s.cfg.Now(), s.cfg.Tuning.JoinRate, s.cfg.Tuning.JoinBurst):
		s.mu.Unlock()
		s.reject(w, r, http.StatusTooManyRequests, wire.ErrJoinRateLimited.Error()+" from this address")
		return
	case q.name != "" && !s.takeRoomJoin(q.name, addr, s.cfg.Now()):
		s.mu.Unlock()
		s.reject(w, r, http.StatusTooManyRequests, wire.ErrJoinRateLimited.Error()+" in this room")
		return
	}
	s.active++
	s.perAddr[addr]++
	if q.name != "" {
		s.roomAddr[roomAddr]++
	}
	s.wg.Add(1)
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.active--
		if s.perAddr[addr]--; s.perAddr[addr] == 0 {
			delete(s.perAddr, addr)
		}
		if q.name != "" {
			if s.roomAddr[roomAddr]--; s.roomAddr[roomAddr] == 0 {
				delete(s.roomAddr, roomAddr)
			}
		}
		s.mu.Unlock()
		s.wg.Done()
	}()

	c := s.newConn(addr, q)
	ws, err := accept(w, r, s.cfg.OriginPatterns, c)
	if err != nil {
		c.cancelRead()
		s.stats.rejected.Add(1)
		s.stats.rejectedBy[rejectUpgrade].Add(1)
		s.log.Info("signaling upgrade failed", "addr", r.RemoteAddr, "err", err)
		return
	}
	ws.SetReadLimit(int64(s.cfg.Tuning.MaxMessageSize))
	c.ws = ws
	s.serveConn(c)
}

// peerConn is one upgraded connection.
type peerConn struct {
	srv  *Server
	ws   *websocket.Conn
	id   string
	addr string
	want roomRequest
	room *room // written by the connection's own goroutine under srv.mu
	v    int   // the protocol version it joined with (under srv.mu once it joined)

	out  chan []byte   // bounded send queue, drained by the writer
	done chan struct{} // closed when the connection ends

	killOnce   sync.Once
	killed     atomic.Bool
	killReason string // set by the first kill, read after the read loop
	readCtx    context.Context
	cancelRead context.CancelFunc
	closeTimer *time.Timer
	wg         sync.WaitGroup // writer, pinger, closer

	rateMu sync.Mutex // the bucket: the read loop and the close handshake both read frames
	rate   bucket

	replies map[string]*allowance // free signals to peers, by id, under srv.mu
}

func newID() string {
	var b [idLen / 2]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// isLoopback reports whether a client address is this machine's: tests,
// the demo and a local proxy are not join-rate-limited per address (a
// remote peer cannot send from a loopback address).
func isLoopback(addr string) bool {
	ip, err := netip.ParseAddr(addr)
	return err == nil && ip.Unmap().IsLoopback()
}

// newConn returns the connection state for a request about to be upgraded.
func (s *Server) newConn(addr string, q roomRequest) *peerConn {
	readCtx, cancelRead := context.WithCancel(context.Background())
	return &peerConn{
		srv:        s,
		addr:       addr,
		want:       q,
		out:        make(chan []byte, s.cfg.Tuning.SendQueue),
		done:       make(chan struct{}),
		readCtx:    readCtx,
		cancelRead: cancelRead,
		rate:       bucket{last: s.cfg.Now()},
	}
}

func (s *Server) serveConn(c *peerConn) {
	defer c.cancelRead()
	ws, addr, q := c.ws, c.addr, c.want
	s.mu.Lock()
	for c.id == "" || s.ids[c.id] != nil {
		c.id = newID()
	}
	s.ids[c.id] = c
	s.conns[c] = struct{}{}
	closing := s.closing
	s.mu.Unlock()
	log := s.log.With("peer", c.id, "addr", addr)
	log.Debug("signaling connection open", "room", q.tokenRoom())
	if closing {
		c.kill(int(websocket.StatusGoingAway), wire.ErrServerClosing)
	}

	c.wg.Add(2)
	go c.writeLoop()
	go c.pingLoop()
	joinTimer := time.AfterFunc(s.cfg.Tuning.JoinTimeout, func() {
		c.kill(wire.CodeJoinTimeout, wire.ErrJoinTimeout)
	})

	end := c.readLoop(c.readCtx, joinTimer)

	joinTimer.Stop()
	c.killOnce.Do(func() {}) // no kill after this point: its goroutine would race wg.Wait
	if !c.killed.Load() {
		_ = ws.CloseNow()
	}
	roomName, left := s.leave(c)
	if s.cluster != nil {
		s.cluster.leave(c)
	}
	close(c.done)
	c.wg.Wait()
	if c.closeTimer != nil {
		c.closeTimer.Stop()
	}
	why := c.killReason
	if why == "" {
		why = closeReason(end)
	}
	if roomName != "" {
		log.Info("signaling leave", "room", roomName, "size", left, "reason", why)
	} else {
		log.Debug("signaling connection closed before joining", "reason", why)
	}
}

// closeReason says in words why a connection the server did not close
// ended: a normal close is not an error.
func closeReason(err error) string {
	switch code := websocket.CloseStatus(err); code {
	case websocket.StatusNormalClosure:
		return "closed by the client"
	case websocket.StatusGoingAway:
		return "client going away"
	case -1:
		return "connection lost: " + err.Error()
	default:
		return "closed by the client with " + code.String()
	}
}

// readLoop reads and handles messages until the connection ends.
func (c *peerConn) readLoop(ctx context.Context, joinTimer *time.Timer) error {
	s := c.srv
	for {
		typ, b, err := c.ws.Read(ctx)
		if err != nil {
			if errors.Is(err, websocket.ErrMessageTooBig) {
				s.stats.tooBig.Add(1)
				s.log.Info("signaling connection closed", "peer", c.id, "addr", c.addr,
					"reason", wire.ErrMessageTooBig.Error())
			}
			return err
		}
		if c.killed.Load() {
			continue // closing: keep reading only to finish the close handshake
		}
		e, err := parseEnvelope(b, fromClient)
		if err == nil && typ != websocket.MessageText {
			err = errors.New("binary message: the protocol is JSON text")
		}
		if errors.Is(err, errProtocolVersion) && c.v == 0 {
			c.srv.log.Debug("signaling join in a version not spoken here", "peer", c.id, "err", err)
			c.kill(wire.CodeProtocolVersion, wire.ErrProtocolVersion)
			continue
		}
		if err == nil && c.v != 0 && e.V != c.v {
			err = fmt.Errorf("version %d after joining with %d", e.V, c.v)
		}
		if err == nil && (e.Type == typeJoin) == (c.room == nil) {
			switch e.Type {
			case typeJoin:
				if !c.allow() {
					c.kill(wire.CodeRateLimited, wire.ErrRateLimited)
					continue
				}
				s.mu.Lock()
				c.v = e.V
				s.mu.Unlock()
				if s.cluster != nil {
					s.cluster.join(c)
				} else {
					c.join()
				}
				joinTimer.Stop()
			case typeSignal:
				c.relay(e)
			}
			continue
		}
		if err == nil {
			err = errors.New("join must come first and only once")
		}
		c.srv.log.Debug("signaling malformed message", "peer", c.id, "err", err)
		c.kill(wire.CodeMalformed, wire.ErrMalformed)
	}
}

// controlFrame charges a ping or pong to the rate limit, and closes the
// connection over it. It reports whether to answer a ping.
func (c *peerConn) controlFrame() bool {
	if c.killed.Load() {
		return false
	}
	if !c.allow() {
		c.kill(wire.CodeRateLimited, wire.ErrRateLimited)
		return false
	}
	return true
}

// allow takes one message from the connection's token bucket.
func (c *peerConn) allow() bool {
	c.rateMu.Lock()
	defer c.rateMu.Unlock()
	cfg := &c.srv.cfg
	return c.rate.take(cfg.Now(), cfg.Tuning.MessageRate, cfg.Tuning.MessageBurst)
}

func mustMarshal(e envelope) []byte {
	b, err := json.Marshal(e)
	if err != nil {
		panic("signaling: marshal envelope: " + err.Error()) // only our own well-formed values
	}
	return b
}

// join places c in its room, replies with its id and the peers already
// there, and tells them about c.
func (c *peerConn) join() {
	s := c.srv
	s.mu.Lock()
	defer s.mu.Unlock()
	var rm *room
	if n := c.want.next; n > 0 {
		rm = s.pending[n]
		if rm == nil {
			rm = &room{name: "next" + strconv.Itoa(n) + "-" + newID(), cap: n, next: n, since: s.cfg.Now()}
			s.rooms[rm.name] = rm
			s.pending[n] = rm
		}
	} else {
		rm = s.rooms[c.want.name]
		if rm == nil {
			rm = &room{name: c.want.name, cap: s.cfg.MaxRoomSize, since: s.cfg.Now()}
			s.rooms[rm.name] = rm
		}
	}
	if len(rm.members) >= rm.cap {
		s.stats.roomFull.Add(1)
		c.kill(wire.CodeRoomFull, wire.ErrRoomFull)
		return
	}
	peers := make([]string, len(rm.members))
	var protocols []int // for version 2
	if c.v >= 2 {
		protocols = make([]int, len(rm.members))
	}
	for i, m := range rm.members {
		peers[i] = m.id
		if protocols != nil {
			protocols[i] = m.v
		}
	}
	rm.members = append(rm.members, c)
	c.room = rm
	if len(rm.members) == 2 {
		s.observePairing(s.cfg.Now().Sub(rm.since))
	}
	if rm.next > 0 && len(rm.members) == rm.cap {
		delete(s.pending, rm.next)
	}
	c.enqueue(mustMarshal(envelope{V: c.v, Type: typeJoin, ID: c.id, Room: rm.name,
		Peers: peers, Protocols: protocols, ICE: s.iceServersFor(c.id), Max: s.cfg.Tuning.MaxMessageSize}))
	for _, m := range rm.members[:len(rm.members)-1] {
		m.grant(c.id, s.cfg.Tuning.ReplyAllowance) // c's arrival makes m offer: c pays
		m.enqueue(peerJoined(m.v, c.id, c.v))
	}
	// peers is who c meets: with rollnet's convention each of them offers.
	s.log.Info("signaling join", "peer", c.id, "addr", c.addr, "room", rm.name, "size", len(rm.members), "peers", peers)
	if rm.next > 0 && len(rm.members) == rm.cap {
		s.log.Info("signaling room filled", "room", rm.name, "size", rm.cap)
	}
}

// peerJoined is the peer-joined message, in version v, for the peer id
// that speaks version pv.
func peerJoined(v int, id string, pv int) []byte {
	e := envelope{V: v, Type: typePeerJoined, Peer: id}
	if v >= 2 {
		e.Protocol = pv
	}
	return mustMarshal(e)
}

// iceServersFor returns the ICE servers for the client with id: the
// configured list, with TURN credentials minted for it when the server has a
// TURNSecret.
func (s *Server) iceServersFor(id string) []wire.ICEServer {
	if len(s.cfg.TURNSecret) == 0 {
		return s.cfg.ICEServers
	}
	out := make([]wire.ICEServer, len(s.cfg.ICEServers))
	for i, is := range s.cfg.ICEServers {
		if is.IsTURN() && is.Username == "" && is.Credential == "" {
			is.Username, is.Credential = turncred.Mint(s.cfg.TURNSecret, id, s.cfg.Now().Add(s.cfg.Tuning.TURNCredentialTTL))
		}
		out[i] = is
	}
	return out
}

// relay forwards a signal to its addressee if it is in c's room, and
// otherwise tells c it was refused. A signal c's allowance to the addressee
// covers is free; any other is charged to c's rate limit and grants the
// addressee an allowance to answer c.
func (c *peerConn) relay(e envelope) {
	s := c.srv
	s.mu.Lock()
	defer s.mu.Unlock()
	free := c.takeAllowance(e.Peer, s.cfg.Now())
	if !free && !c.allow() {
		c.kill(wire.CodeRateLimited, wire.ErrRateLimited)
		return
	}
	to := s.ids[e.Peer]
	v := wire.ProtocolVersion // another instance's client: its instance puts its version
	if to != nil {
		v = to.v
	}
	// The envelope is the addressee's version; the payload is relayed as
	// it is, whatever the versions (the sender chose it for the addressee).
	b := appendSignal(make([]byte, 0, signalOverhead+len(e.Payload)), v, c.id, e.Kind, e.Payload)
	if (to == nil || to.room != c.room) && s.cluster != nil && s.cluster.relay(c, e.Peer, b, free) {
		s.stats.relayed.Add(1)
		s.stats.relayedBytes.Add(uint64(len(b)))
		return
	}
	if to == nil || to == c || to.room != c.room {
		s.stats.refused.Add(1)
		c.tryEnqueue(mustMarshal(envelope{V: c.v, Type: typeError, Code: errCodeUnknownPeer,
			Message: wire.ErrUnknownPeer.Error(), Peer: e.Peer}))
		return
	}
	if !free {
		to.grant(c.id, s.cfg.Tuning.ReplyAllowance)
	}
	s.stats.relayed.Add(1)
	s.stats.relayedBytes.Add(uint64(len(b)))
	to.enqueue(b)
}

// leave removes c from the server and its room, and tells the room. It
// returns the room c was in ("" if none) and how many are left in it.
func (s *Server) leave(c *peerConn) (string, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.conns, c)
	delete(s.ids, c.id)
	rm := c.room
	if rm == nil {
		return "", 0
	}
	c.room = nil
	for i, m := range rm.members {
		if m == c {
			rm.members = append(rm.members[:i], rm.members[i+1:]...)
			break
		}
	}
	if len(rm.members) == 0 {
		delete(s.rooms, rm.name)
		if rm.next > 0 && s.pending[rm.next] == rm {
			delete(s.pending, rm.next)
		}
		return rm.name, 0
	}
	if s.cluster != nil {
		return rm.name, len(rm.members) // the cluster tells the room, from the bucket
	}
	now := s.cfg.Now()
	for _, m := range rm.members {
		m.peerGone(c.id, now)
		m.enqueue(mustMarshal(envelope{V: m.v, Type: typePeerLeft, Peer: c.id}))
	}
	return rm.name, len(rm.members)
}

// enqueue queues b for c without blocking; a full queue drops c.
func (c *peerConn) enqueue(b []byte) {
	if c.killed.Load() {
		return
	}
	select {
	case c.out <- b:
	default:
		c.kill(wire.CodeSlowConsumer, wire.ErrSlowConsumer)
	}
}

// tryEnqueue queues b for c if there is room, and otherwise drops b: for
// replies that are advice (an error reply), so that a burst of refused
// signals does not make their sender a slow consumer.
func (c *peerConn) tryEnqueue(b []byte) {
	select {
	case c.out <- b:
	default:
	}
}

// kill closes c with code and reason: the close handshake runs in the
// background, and the socket is cut after CloseTimeout whatever the peer
// does. Only the first kill counts.
func (c *peerConn) kill(code int, reason error) {
	c.killOnce.Do(func() {
		s := c.srv
		c.killed.Store(true)
		switch code {
		case wire.CodeMalformed:
			s.stats.malformed.Add(1)
		case wire.CodeRateLimited:
			s.stats.rateLimited.Add(1)
		case wire.CodeJoinTimeout:
			s.stats.joinTimeouts.Add(1)
		case wire.CodeSlowConsumer:
			s.stats.slowConsumers.Add(1)
		case wire.CodePingTimeout:
			s.stats.pingTimeouts.Add(1)
		case wire.CodeClusterUnavailable:
			s.stats.clusterClosed.Add(1)
		}
		c.killReason = "closed by the server: " + reason.Error()
		lvl := slog.LevelInfo
		if code == int(websocket.StatusGoingAway) {
			lvl = slog.LevelDebug // every connection at shutdown
		}
		s.log.Log(context.Background(), lvl, "signaling connection closed", "peer", c.id, "addr", c.addr,
			"code", code, "reason", reason.Error())
		c.closeTimer = time.AfterFunc(s.cfg.Tuning.CloseTimeout, c.cancelRead)
		c.wg.Add(1)
		go func() {
			defer c.wg.Done()
			_ = c.ws.Close(websocket.StatusCode(code), reason.Error())
		}()
	})
}

func (c *peerConn) writeLoop() {
	defer c.wg.Done()
	for {
		select {
		case b := <-c.out:
			ctx, cancel := context.WithTimeout(context.Background(), c.srv.cfg.Tuning.WriteTimeout)
			err := c.ws.Write(ctx, websocket.MessageText, b)
			cancel()
			if err != nil {
				return // the connection is closed; the read loop ends it
			}
		case <-c.done:
			return
		}
	}
}

func (c *peerConn) pingLoop() {
	defer c.wg.Done()
	t := time.NewTicker(c.srv.cfg.Tuning.PingInterval)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			ctx, cancel := context.WithTimeout(context.Background(), c.srv.cfg.Tuning.PingTimeout)
			err := c.ws.Ping(ctx)
			cancel()
			if err != nil {
				if errors.Is(err, context.DeadlineExceeded) {
					c.kill(wire.CodePingTimeout, wire.ErrPingTimeout)
				}
				return // otherwise the connection is closed already
			}
		case <-c.done:
			return
		}
	}
}
