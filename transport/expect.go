package transport

// Expecter is implemented by a Transport that can drop datagrams from peers
// the session does not expect before they take a receive-queue slot. A
// session that knows its peers calls Expect with all of them (players and
// spectators) and again whenever that set changes; a Transport without the
// methods leaves the filtering to the session.
//
// Until the first call every peer's datagrams are received. After Expect,
// a datagram from a peer outside the latest set is dropped (and counted by
// the transport) on arrival, so that no number of them can cost an
// expected peer a slot, and datagrams from such a peer still waiting are
// dropped at once. Expect with no peers expects none. Expect copies its
// argument; it may allocate, since it is called when the set of peers
// changes, not per frame.
//
// ExpectAnyone opens the gate again: from now on every peer's datagrams
// are received, as before the first Expect, until the next Expect closes
// it (dropping what strangers left waiting). A session opens it while a
// player may come back from an address it does not know yet (a restarted
// process, a phone that changed networks, a late joiner); the fair receive
// queue (each sender its own share) keeps strangers from crowding out the
// expected peers meanwhile.
//
// Neither connects or disconnects anyone: Send is unaffected.
type Expecter interface {
	Expect(peers ...Peer)
	ExpectAnyone()
}
