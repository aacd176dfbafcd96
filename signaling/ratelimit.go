package signaling

import "time"

// bucket is a token bucket: rate tokens a second up to burst, starting full.
type bucket struct {
	used float64 // tokens taken and not yet refilled; 0 is full
	last time.Time
}

// take takes one token at now, or reports false when none is left.
func (b *bucket) take(now time.Time, rate, burst int) bool {
	b.refill(now, float64(rate))
	if b.used+1 > float64(burst) {
		return false
	}
	b.used++
	return true
}

func (b *bucket) refill(now time.Time, rate float64) {
	if d := now.Sub(b.last); d > 0 {
		b.used = max(0, b.used-d.Seconds()*rate)
		b.last = now
	}
}

// bucketMap is a bucket per key (an address, a room) whose memory is
// bounded by the keys that used their bucket recently: full buckets are
// forgotten when the map doubles.
type bucketMap struct {
	m       map[string]*bucket
	pruneAt int
}

const minPruneAt = 1024

func (bm *bucketMap) take(key string, now time.Time, rate, burst int) bool {
	return bm.get(key, now, float64(rate)).take(now, rate, burst)
}

// get returns key's bucket refilled at now (a full one if it had none).
// Every bucket of a map refills at the same rate.
func (bm *bucketMap) get(key string, now time.Time, rate float64) *bucket {
	if bm.m == nil {
		bm.m, bm.pruneAt = make(map[string]*bucket), minPruneAt
	}
	b := bm.m[key]
	if b == nil {
		if len(bm.m) >= bm.pruneAt {
			for k, ob := range bm.m {
				if ob.refill(now, rate); ob.used == 0 {
					delete(bm.m, k)
				}
			}
			bm.pruneAt = max(minPruneAt, 2*len(bm.m))
		}
		b = &bucket{last: now}
		bm.m[key] = b
	}
	b.refill(now, rate)
	return b
}

// A named room's join budget (RoomJoinRate a second, RoomJoinBurst at once)
// is shared fairly between addresses: each address's joins into the room
// are counted in a bucket of its own that drains at a quarter of the
// room's rate (its share, roomShare). An address that has joined the
// room more than a quarter of RoomJoinBurst times lately (4 of 16, counted
// down at 0.5 a second by default) is heavy, and may take the room's
// budget only while more than half of it is left: the other half (8 joins,
// refilling at the room's rate) stays for the addresses within their
// share. Two addresses churning at their per-address rate then spend the
// first half between them, and a newcomer still gets in at its first
// try; draining the whole budget takes more than four addresses each within
// its share. Loopback addresses are all one machine (tests, the demo) and
// are never heavy.
const roomShare = 4

// takeRoomJoin takes one join into the named room from addr's side of
// the room's budget at now, or reports false. Under s.mu.
func (s *Server) takeRoomJoin(room, addr string, now time.Time) bool {
	cfg := &s.cfg
	rate, burst := float64(cfg.Tuning.RoomJoinRate), float64(cfg.Tuning.RoomJoinBurst)
	b := s.roomJoins.get(room, now, rate)
	if b.used+1 > burst {
		return false
	}
	var use *bucket
	if !isLoopback(addr) {
		use = s.roomAddrJoins.get(room+"\x00"+addr, now, rate/roomShare)
		heavy := use.used >= max(1, burst/roomShare)
		if heavy && burst-(b.used+1) < burst/2 {
			return false
		}
	}
	b.used++
	if use != nil {
		use.used++
	}
	return true
}

// replyGrace is how long a member may still send its allowance to a peer
// that left (signals in flight when it heard peer-left), refused but not
// charged.
const replyGrace = 10 * time.Second

// allowance is what a member may send to one peer free of its own rate
// limit, because that peer caused it: by joining, or by a signal the peer
// paid for.
type allowance struct {
	left int
	gone time.Time // when the peer left; zero while it is in the room
}

// grant gives c an allowance of n more free signals to peer, bounded by
// 4n in all. Under srv.mu.
func (c *peerConn) grant(peer string, n int) {
	if c.replies == nil {
		c.replies = make(map[string]*allowance)
	}
	a := c.replies[peer]
	if a == nil {
		a = &allowance{}
		c.replies[peer] = a
	}
	a.left = min(a.left+n, 4*n)
}

// takeAllowance uses one of c's free signals to peer, if it has one. A
// peer that left more than replyGrace ago takes its allowance with it.
// Under srv.mu.
func (c *peerConn) takeAllowance(peer string, now time.Time) bool {
	a := c.replies[peer]
	if a == nil || a.left == 0 || !a.gone.IsZero() && now.Sub(a.gone) > replyGrace {
		return false
	}
	a.left--
	return true
}

// peerGone marks c's allowance to peer as ending, and forgets the ones
// that ended. Under srv.mu.
func (c *peerConn) peerGone(peer string, now time.Time) {
	if a := c.replies[peer]; a != nil {
		a.gone = now
	}
	for k, a := range c.replies {
		if !a.gone.IsZero() && now.Sub(a.gone) > replyGrace {
			delete(c.replies, k)
		}
	}
}
