//go:build !js

package signaling

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/rollnet/rollnet/signaling/internal/wire"
)

// cluster is a server's part in a set of instances on NATS. The rooms live
// in a JetStream key-value bucket, one key per room holding its members
// oldest first and the instance each is connected to; every change is a
// compare-and-set on the key's revision, so two instances adding the last
// member of a room cannot both succeed. Every instance watches the whole
// bucket and keeps a mirror of it; events to its own clients (peer-joined,
// peer-left) are the difference between what each client was told and the
// mirror, so a late, repeated or replayed update changes nothing. Signals
// to a peer on another instance go to that instance's subject.
type cluster struct {
	srv  *Server
	cfg  ClusterConfig
	nc   *nats.Conn
	kv   jetstream.KeyValue
	inst string // this instance's id
	subj string // the subject prefix, "<Name>."

	sub *nats.Subscription // signals for this instance's clients
	hb  *nats.Subscription // heartbeats

	// Under mu, taken after srv.mu when both are held.
	mu      sync.Mutex
	rooms   map[string]*clusterRoom      // the bucket's rooms, by key
	members map[*peerConn]*clusterMember // this instance's clients in rooms
	early   map[*peerConn][]relayMsg     // clients joining: signals that came before their join reply
	seen    map[string]time.Time         // other instances, when last heard
	dead    map[string]bool              // instances found dead, until heard again
	orphans []orphan                     // leaves that could not be written yet
	watch   jetstream.KeyWatcher
	unwatch context.CancelFunc // ends the watch (and nats.go's goroutine for its context)
	synced  bool               // the watch has delivered the bucket once
	wasDown bool               // NATS was unreachable at the last tick
	gen     uint64             // NATS reconnects when the watch started

	stop     chan struct{}
	tickDone chan struct{}
	wg       sync.WaitGroup // watch loops
	once     sync.Once
}

// clusterRoom is a room's value in the bucket.
type clusterRoom struct {
	Cap     int             `json:"cap"`
	Next    int             `json:"next,omitempty"`
	Since   int64           `json:"since"` // Unix ns when its first member joined
	Members []clusterMember `json:"m"`
	rev     uint64
}

// clusterMember is one member of a room: its id, instance and protocol
// version (absent for version 1, as instances older than version 2 wrote
// it). For this instance's clients it also records what the client was
// told.
type clusterMember struct {
	ID   string `json:"id"`
	Inst string `json:"i"`
	V    int    `json:"v,omitempty"`

	key   string            // the room's key
	rev   uint64            // the revision that added it
	known map[string]string // the peers the client was told about: their instances
}

type orphan struct{ key, id string }

// protocol is the version m speaks.
func (m clusterMember) protocol() int {
	if m.V == 0 {
		return 1
	}
	return m.V
}

func (r *clusterRoom) has(id string) bool {
	return slices.ContainsFunc(r.Members, func(m clusterMember) bool { return m.ID == id })
}

// roomKey is the bucket key of the room name: '.' separates key tokens, so
// it is written '=' (which no room name holds).
func roomKey(name string) string { return "r." + strings.ReplaceAll(name, ".", "=") }

func roomName(key string) string {
	return strings.ReplaceAll(strings.TrimPrefix(key, "r."), "=", ".")
}

func nextKey(n int) string { return "n." + strconv.Itoa(n) }

func newCluster(s *Server, nc *nats.Conn, cfg ClusterConfig) (*cluster, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	cl := &cluster{
		srv: s, cfg: cfg, nc: nc, inst: newID(), subj: cfg.Name + ".",
		rooms:    make(map[string]*clusterRoom),
		members:  make(map[*peerConn]*clusterMember),
		early:    make(map[*peerConn][]relayMsg),
		seen:     make(map[string]time.Time),
		dead:     make(map[string]bool),
		stop:     make(chan struct{}),
		tickDone: make(chan struct{}),
	}
	ctx, cancel := context.WithTimeout(context.Background(), cfg.OpTimeout)
	defer cancel()
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", wire.ErrClusterUnavailable, err)
	}
	cl.kv, err = js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{
		Bucket:      cfg.Name + "-rooms",
		Description: "rollnet-signal rooms: members and their instances",
		History:     1,
		Storage:     jetstream.FileStorage,
	})
	if err != nil {
		return nil, fmt.Errorf("%w: key-value bucket: %v", wire.ErrClusterUnavailable, err)
	}
	if cl.sub, err = nc.Subscribe(cl.subj+"i."+cl.inst, cl.onRelay); err != nil {
		return nil, fmt.Errorf("%w: %v", wire.ErrClusterUnavailable, err)
	}
	if cl.hb, err = nc.Subscribe(cl.subj+"hb", cl.onHeartbeat); err != nil {
		_ = cl.sub.Unsubscribe()
		return nil, fmt.Errorf("%w: %v", wire.ErrClusterUnavailable, err)
	}
	if err := cl.startWatch(ctx); err != nil {
		_ = cl.sub.Unsubscribe()
		_ = cl.hb.Unsubscribe()
		return nil, err
	}
	_ = nc.Publish(cl.subj+"hb", []byte(cl.inst))
	go cl.tick()
	return cl, nil
}

// startWatch watches the whole bucket, replacing any earlier watch, and
// returns once the bucket's current rooms are in the mirror.
func (cl *cluster) startWatch(ctx context.Context) error {
	gen := cl.nc.Stats().Reconnects
	wctx, unwatch := context.WithCancel(context.Background())
	w, err := cl.kv.WatchAll(wctx)
	if err != nil {
		unwatch()
		return fmt.Errorf("%w: watch: %v", wire.ErrClusterUnavailable, err)
	}
	cl.mu.Lock()
	old, oldUnwatch := cl.watch, cl.unwatch
	cl.watch, cl.unwatch, cl.synced, cl.gen = w, unwatch, false, gen
	cl.mu.Unlock()
	if old != nil {
		_ = old.Stop()
		oldUnwatch()
	}
	synced := make(chan struct{})
	cl.wg.Add(1)
	go cl.watchLoop(w, synced)
	select {
	case <-synced:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("%w: watch: %v", wire.ErrClusterUnavailable, ctx.Err())
	}
}

func (cl *cluster) watchLoop(w jetstream.KeyWatcher, synced chan struct{}) {
	defer cl.wg.Done()
	for e := range w.Updates() {
		if e == nil { // the bucket's current values are all in
			cl.mu.Lock()
			if cl.watch == w {
				cl.synced = true
			}
			cl.mu.Unlock()
			close(synced)
			continue
		}
		cl.apply(e)
	}
}

// apply takes one update of the bucket into the mirror and tells this
// instance's clients in that room what changed.
func (cl *cluster) apply(e jetstream.KeyValueEntry) {
	key := e.Key()
	if !strings.HasPrefix(key, "r.") {
		return // a next=N pointer
	}
	var r *clusterRoom
	if e.Operation() == jetstream.KeyValuePut {
		r = new(clusterRoom)
		if err := json.Unmarshal(e.Value(), r); err != nil {
			cl.srv.log.Warn("signaling cluster: room value not understood", "key", key, "err", err)
			return
		}
	}
	s := cl.srv
	s.mu.Lock()
	defer s.mu.Unlock()
	cl.mu.Lock()
	defer cl.mu.Unlock()
	if old := cl.rooms[key]; old != nil && old.rev >= e.Revision() {
		return // replayed after a new watch
	}
	if r == nil {
		delete(cl.rooms, key)
		r = &clusterRoom{}
	} else {
		cl.rooms[key] = r
		now := time.Now()
		for _, m := range r.Members {
			if _, ok := cl.seen[m.Inst]; !ok && m.Inst != cl.inst && !cl.dead[m.Inst] {
				cl.seen[m.Inst] = now // unheard of: dead unless it speaks within DeadAfter
			}
		}
	}
	r.rev = e.Revision()
	cl.reconcile(key, r)
}

// reconcile tells each of this instance's clients in the room with key the
// peers that joined and left since what it was told. A client the room no
// longer holds (its instance was taken for dead) is closed so that it
// joins again. Both locks are held.
func (cl *cluster) reconcile(key string, r *clusterRoom) {
	s := cl.srv
	rm := s.rooms[roomName(key)]
	if rm == nil {
		return
	}
	now := s.cfg.Now()
	for _, c := range rm.members {
		cm := cl.members[c]
		if cm == nil || cm.rev > r.rev {
			continue // the update is older than its join
		}
		if !r.has(c.id) {
			c.kill(wire.CodeClusterUnavailable, wire.ErrClusterUnavailable)
			continue
		}
		for _, m := range r.Members {
			if _, ok := cm.known[m.ID]; ok || m.ID == c.id {
				continue
			}
			cm.known[m.ID] = m.Inst
			c.grant(m.ID, s.cfg.Tuning.ReplyAllowance) // its arrival makes c offer: it pays
			c.enqueue(peerJoined(c.v, m.ID, m.protocol()))
		}
		for id := range cm.known {
			if !r.has(id) {
				delete(cm.known, id)
				c.peerGone(id, now)
				c.enqueue(mustMarshal(envelope{V: c.v, Type: typePeerLeft, Peer: id}))
			}
		}
	}
}

// memberVersion is a client's version as its bucket record holds it.
func memberVersion(v int) int {
	if v == 1 {
		return 0
	}
	return v
}

// join places c in its room through the bucket: read the room, add c if
// there is space, write it back if nobody wrote in between, else again.
func (cl *cluster) join(c *peerConn) {
	s := cl.srv
	ctx, cancel := context.WithTimeout(context.Background(), cl.cfg.OpTimeout)
	defer cancel()
	// A peer told of c by another instance's watch may signal c before
	// the bucket's answer reaches this one: those signals wait for it.
	cl.mu.Lock()
	cl.early[c] = nil
	cl.mu.Unlock()
	defer func() {
		cl.mu.Lock()
		delete(cl.early, c)
		cl.mu.Unlock()
	}()
	for {
		key, r, nextRev, err := cl.target(ctx, c.want)
		if err == nil && len(r.Members) >= r.Cap {
			if c.want.next > 0 { // filled meanwhile: start the next one
				err = cl.newNextRoom(ctx, c.want.next, nextRev)
				if err == nil || errors.Is(err, jetstream.ErrKeyRevisionMismatch) || errors.Is(err, jetstream.ErrKeyExists) {
					continue
				}
			} else {
				s.stats.roomFull.Add(1)
				c.kill(wire.CodeRoomFull, wire.ErrRoomFull)
				return
			}
		}
		var rev uint64
		if err == nil {
			peers := r.Members
			if r.Since == 0 {
				r.Since = s.cfg.Now().UnixNano()
			}
			r.Members = append(slices.Clip(r.Members), clusterMember{ID: c.id, Inst: cl.inst, V: memberVersion(c.v)})
			b, _ := json.Marshal(r)
			if r.rev == 0 {
				rev, err = cl.kv.Create(ctx, key, b)
			} else {
				rev, err = cl.kv.Update(ctx, key, b, r.rev)
			}
			if err == nil {
				if r.Next > 0 && len(r.Members) == r.Cap {
					_ = cl.kv.Delete(ctx, nextKey(r.Next), jetstream.LastRevision(nextRev))
				}
				cl.joined(c, key, r, rev, peers)
				return
			}
		}
		if errors.Is(err, jetstream.ErrKeyRevisionMismatch) || errors.Is(err, jetstream.ErrKeyExists) {
			continue // someone wrote first: read again
		}
		s.log.Info("signaling cluster join failed", "peer", c.id, "addr", c.addr, "err", err)
		if key != "" {
			// The write may have reached the bucket with its answer lost:
			// the next heartbeats take c out again if so.
			cl.mu.Lock()
			cl.orphans = append(cl.orphans, orphan{key, c.id})
			cl.mu.Unlock()
		}
		c.kill(wire.CodeClusterUnavailable, wire.ErrClusterUnavailable)
		return
	}
}

// target reads the room c wants: its key, its value (revision 0 if new) and,
// for next=N, the revision of the pointer to the room being filled.
func (cl *cluster) target(ctx context.Context, q roomRequest) (string, *clusterRoom, uint64, error) {
	name, cap, nextRev := q.name, cl.srv.cfg.MaxRoomSize, uint64(0)
	if q.next > 0 {
		e, err := cl.kv.Get(ctx, nextKey(q.next))
		if errors.Is(err, jetstream.ErrKeyNotFound) {
			err = cl.newNextRoom(ctx, q.next, 0)
			if err == nil || errors.Is(err, jetstream.ErrKeyExists) || errors.Is(err, jetstream.ErrKeyRevisionMismatch) {
				return cl.target(ctx, q)
			}
		}
		if err != nil {
			return "", nil, 0, err
		}
		name, cap, nextRev = string(e.Value()), q.next, e.Revision()
		if !validRoom(name) {
			return "", nil, 0, fmt.Errorf("next=%d names %q", q.next, name)
		}
	}
	key := roomKey(name)
	r := &clusterRoom{Cap: cap, Next: q.next}
	e, err := cl.kv.Get(ctx, key)
	switch {
	case errors.Is(err, jetstream.ErrKeyNotFound):
		return key, r, nextRev, nil
	case err != nil:
		return "", nil, 0, err
	}
	if err := json.Unmarshal(e.Value(), r); err != nil {
		return "", nil, 0, fmt.Errorf("room %q: %v", name, err)
	}
	r.rev = e.Revision()
	return key, r, nextRev, nil
}

// newNextRoom points next=N at a new room, if the pointer is still at
// revision rev (0: absent).
func (cl *cluster) newNextRoom(ctx context.Context, n int, rev uint64) error {
	name := []byte("next" + strconv.Itoa(n) + "-" + newID())
	var err error
	if rev == 0 {
		_, err = cl.kv.Create(ctx, nextKey(n), name)
	} else {
		_, err = cl.kv.Update(ctx, nextKey(n), name, rev)
	}
	return err
}

// joined records c in its room once the bucket holds it (revision rev),
// and sends its join reply: peers are the members before it.
func (cl *cluster) joined(c *peerConn, key string, r *clusterRoom, rev uint64, peers []clusterMember) {
	s := cl.srv
	s.mu.Lock()
	defer s.mu.Unlock()
	cl.mu.Lock()
	defer cl.mu.Unlock()
	name := roomName(key)
	rm := s.rooms[name]
	if rm == nil {
		rm = &room{name: name, cap: r.Cap, next: r.Next}
		s.rooms[name] = rm
	}
	rm.members = append(rm.members, c)
	c.room = rm
	cm := &clusterMember{ID: c.id, Inst: cl.inst, key: key, rev: rev, known: make(map[string]string, len(peers))}
	ids := make([]string, len(peers))
	var protocols []int // for version 2
	if c.v >= 2 {
		protocols = make([]int, len(peers))
	}
	for i, p := range peers {
		ids[i] = p.ID
		cm.known[p.ID] = p.Inst
		if protocols != nil {
			protocols[i] = p.protocol()
		}
	}
	cl.members[c] = cm
	c.enqueue(mustMarshal(envelope{V: c.v, Type: typeJoin, ID: c.id, Room: name,
		Peers: ids, Protocols: protocols, ICE: s.iceServersFor(c.id), Max: s.cfg.Tuning.MaxMessageSize}))
	if len(r.Members) == 2 {
		s.observePairing(time.Duration(s.cfg.Now().UnixNano() - r.Since))
	}
	if m := cl.rooms[key]; m != nil && m.rev >= rev {
		cl.reconcile(key, m) // the watch was faster than the reply
	}
	for _, rl := range cl.early[c] {
		if rl.room == name {
			cl.deliver(c, rl)
		}
	}
	delete(cl.early, c)
	s.log.Info("signaling join", "peer", c.id, "addr", c.addr, "room", name, "size", len(r.Members),
		"peers", ids, "instance", cl.inst)
	if r.Next > 0 && len(r.Members) == r.Cap {
		s.log.Info("signaling room filled", "room", name, "size", r.Cap)
	}
}

// leave takes c out of its room in the bucket, after the server took it
// out of its own. A leave NATS cannot take now is retried every heartbeat.
func (cl *cluster) leave(c *peerConn) {
	cl.mu.Lock()
	cm := cl.members[c]
	delete(cl.members, c)
	cl.mu.Unlock()
	if cm == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), cl.cfg.OpTimeout)
	defer cancel()
	if err := cl.remove(ctx, cm.key, func(m clusterMember) bool { return m.ID == c.id }); err != nil {
		cl.srv.log.Info("signaling cluster leave deferred", "peer", c.id, "err", err)
		cl.mu.Lock()
		cl.orphans = append(cl.orphans, orphan{cm.key, c.id})
		cl.mu.Unlock()
	}
}

// remove deletes the members gone reports from the room with key, and the
// room once empty, by compare-and-set.
func (cl *cluster) remove(ctx context.Context, key string, gone func(clusterMember) bool) error {
	for {
		e, err := cl.kv.Get(ctx, key)
		if errors.Is(err, jetstream.ErrKeyNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		var r clusterRoom
		if err := json.Unmarshal(e.Value(), &r); err != nil {
			return err
		}
		n := len(r.Members)
		r.Members = slices.DeleteFunc(r.Members, gone)
		switch {
		case len(r.Members) == n:
			return nil
		case len(r.Members) == 0:
			err = cl.kv.Delete(ctx, key, jetstream.LastRevision(e.Revision()))
		default:
			b, _ := json.Marshal(&r)
			_, err = cl.kv.Update(ctx, key, b, e.Revision())
		}
		if !errors.Is(err, jetstream.ErrKeyRevisionMismatch) {
			return err
		}
	}
}

// relay sends signal b from c to the peer to on another instance, if c
// was told that peer is in its room (by its join reply or peer-joined, and
// no peer-left since: the mirror may not hold c's own join yet). free says
// whether c's allowance paid for it. Called under srv.mu.
func (cl *cluster) relay(c *peerConn, to string, b []byte, free bool) bool {
	cl.mu.Lock()
	var inst string
	if cm := cl.members[c]; cm != nil {
		inst = cm.known[to]
	}
	cl.mu.Unlock()
	if inst == "" || inst == cl.inst || c.room == nil {
		return false
	}
	msg := appendRelay(make([]byte, 0, relayOverhead+len(c.room.name)+len(b)), to, c.id, free, c.room.name, b)
	return cl.nc.Publish(cl.subj+"i."+inst, msg) == nil
}

// onRelay delivers a signal from another instance to its addressee, if
// still in the room it was sent in.
func (cl *cluster) onRelay(m *nats.Msg) {
	s := cl.srv
	rl, err := parseRelay(m.Data, s.cfg.Tuning.MaxMessageSize+signalOverhead)
	if err != nil {
		s.stats.clusterDropped.Add(1)
		s.log.Warn("signaling cluster: relay not understood", "err", err)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	to := s.ids[rl.to]
	if to != nil && to.room == nil {
		cl.mu.Lock()
		q, joining := cl.early[to]
		if joining && len(q) < s.cfg.Tuning.SendQueue {
			cl.early[to] = append(q, rl)
		}
		cl.mu.Unlock()
		if joining {
			return
		}
	}
	if to == nil || to.room == nil || to.room.name != rl.room {
		s.stats.clusterDropped.Add(1) // it left meanwhile
		return
	}
	cl.deliver(to, rl)
}

// deliver queues a signal from another instance for its addressee. Called
// under srv.mu.
func (cl *cluster) deliver(to *peerConn, rl relayMsg) {
	s := cl.srv
	if !rl.free {
		to.grant(rl.from, s.cfg.Tuning.ReplyAllowance)
	}
	b := rl.signal
	if to.v != wire.ProtocolVersion {
		// Sent in the newest version, not knowing the addressee's: the
		// payload stays as it is, the envelope becomes its version.
		e, err := parseEnvelope(b, fromServer)
		if err != nil || e.Type != typeSignal {
			s.stats.clusterDropped.Add(1)
			return
		}
		b = appendSignal(make([]byte, 0, signalOverhead+len(e.Payload)), to.v, e.Peer, e.Kind, e.Payload)
	}
	s.stats.relayed.Add(1)
	s.stats.relayedBytes.Add(uint64(len(b)))
	to.enqueue(b)
}

func (cl *cluster) onHeartbeat(m *nats.Msg) {
	inst := string(m.Data)
	if !validID(inst) || inst == cl.inst {
		return
	}
	cl.mu.Lock()
	cl.seen[inst] = time.Now()
	delete(cl.dead, inst)
	cl.mu.Unlock()
}

// tick says this instance is alive, finds instances that are not, and
// retries what NATS could not take.
func (cl *cluster) tick() {
	defer close(cl.tickDone)
	t := time.NewTicker(cl.cfg.Heartbeat)
	defer t.Stop()
	for {
		select {
		case <-cl.stop:
			return
		case <-t.C:
		}
		if !cl.nc.IsConnected() {
			cl.mu.Lock()
			cl.wasDown = true
			cl.mu.Unlock()
			continue
		}
		_ = cl.nc.Publish(cl.subj+"hb", []byte(cl.inst))
		now := time.Now()
		cl.mu.Lock()
		back := cl.wasDown || cl.gen != cl.nc.Stats().Reconnects
		cl.wasDown = false
		if back {
			// Nobody could be heard while NATS was away: everyone gets
			// DeadAfter again, from now.
			for inst := range cl.seen {
				cl.seen[inst] = now
			}
		}
		var dead []string
		for inst, at := range cl.seen {
			if now.Sub(at) > cl.cfg.DeadAfter {
				dead = append(dead, inst)
				delete(cl.seen, inst)
				cl.dead[inst] = true
			}
		}
		var keys []string
		for inst := range cl.dead {
			for key, r := range cl.rooms {
				if slices.ContainsFunc(r.Members, func(m clusterMember) bool { return m.Inst == inst }) {
					keys = append(keys, key)
				}
			}
		}
		orphans := cl.orphans
		cl.orphans = nil
		cl.mu.Unlock()
		if back {
			cl.srv.log.Info("signaling cluster: NATS is back, watching the rooms again")
			ctx, cancel := context.WithTimeout(context.Background(), cl.cfg.OpTimeout)
			if err := cl.startWatch(ctx); err != nil {
				cl.srv.log.Warn("signaling cluster: watch", "err", err)
				cl.mu.Lock()
				cl.wasDown = true
				cl.mu.Unlock()
			}
			cancel()
		}
		for _, inst := range dead {
			cl.srv.log.Warn("signaling cluster: instance dead, taking its clients out of their rooms",
				"instance", inst, "silent_for", cl.cfg.DeadAfter)
		}
		cl.sweep(keys, orphans)
	}
}

// sweep takes the members of dead instances out of the rooms with keys,
// and writes the leaves that failed before.
func (cl *cluster) sweep(keys []string, orphans []orphan) {
	ctx, cancel := context.WithTimeout(context.Background(), cl.cfg.OpTimeout)
	defer cancel()
	for _, key := range slices.Compact(slices.Sorted(slices.Values(keys))) {
		err := cl.remove(ctx, key, func(m clusterMember) bool {
			cl.mu.Lock()
			defer cl.mu.Unlock()
			return cl.dead[m.Inst]
		})
		if err != nil {
			cl.srv.log.Info("signaling cluster: sweep", "key", key, "err", err)
		}
	}
	for i, o := range orphans {
		if err := cl.remove(ctx, o.key, func(m clusterMember) bool { return m.ID == o.id }); err != nil {
			cl.mu.Lock()
			cl.orphans = append(cl.orphans, orphans[i:]...)
			cl.mu.Unlock()
			return
		}
	}
}

// ready reports whether the instance can place clients in rooms: NATS is
// connected and the mirror is current, from a watch started since the last
// reconnect (one from before may have missed what happened meanwhile).
func (cl *cluster) ready() bool {
	cl.mu.Lock()
	defer cl.mu.Unlock()
	return cl.synced && !cl.wasDown && cl.nc.IsConnected() && cl.gen == cl.nc.Stats().Reconnects
}

// close ends the cluster's goroutines and subscriptions (after the server
// closed its connections, whose leaves have been written).
func (cl *cluster) close() {
	cl.once.Do(func() {
		close(cl.stop)
		<-cl.tickDone // it may be starting a watch
		_ = cl.sub.Unsubscribe()
		_ = cl.hb.Unsubscribe()
		cl.mu.Lock()
		w, unwatch := cl.watch, cl.unwatch
		cl.mu.Unlock()
		_ = w.Stop()
		unwatch()
		cl.wg.Wait()
	})
}

// clusterStats is the cluster's part of Stats.
func (cl *cluster) stats() (instances, rooms int, ready bool) {
	ready = cl.ready()
	cl.mu.Lock()
	defer cl.mu.Unlock()
	return len(cl.seen) + 1, len(cl.rooms), ready
}
