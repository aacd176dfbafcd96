// Package fleet runs many authoritative hosts as one service, on the NATS
// JetStream deployment the signaling cluster already uses: hosts register
// and heartbeat (package authority/dedicated's hosts, rollnet-host -fleet,
// write the Host records), signaling instances place
// matches on them (Placer, rollnet-signal -fleet-secret-file) and hand a
// client its host's address and a connect token (transport/quic/
// connecttoken), and a host drains before it goes. A client asks through
// netplay.Connect with Config.Fleet (or netplay.Place). The request and reply types
// (Request, Reply, Host) use only the standard library; the NATS parts
// are native-only files, so a browser build links none of it.
//
// # The bucket
//
// One key-value bucket, "<Config.Name>-fleet" (history 1, file storage),
// created by the first placer (or operator) that finds it missing, never
// updated by a member:
//
//	host.<id>           a Host record (JSON): its layout (2), the host's
//	                    QUIC address and WebTransport URL, certificate
//	                    hash, version, games (with clients per match),
//	                    capacity (matches, clients), Beat, Draining, its
//	                    own counts, and Matches: every match placed on it
//	room.<game>.<room>  {"host": id}: where the room's match is
//	drain.<id>          an operator's drain order for host id
//
// # Who may write what (the trust model)
//
// The bucket is the fleet's control plane: whoever writes a key decides
// something, so each key has one kind of writer, and NATS subject
// permissions say so (a key K is the subject $KV.<bucket>.K). The file
// nats-fleet.conf beside this package is a working configuration, and
// TestBucketPermissions runs an embedded nats-server with exactly it:
//
//	host.<id>           host id (its own record only: $KV.<bucket>.host.<id>),
//	                    and placers (the matches they add; the records of
//	                    hosts gone for ForgetAfter)
//	room.<game>.<room>  placers only
//	drain.<id>          operators only (Drain; rollnet-fleet -drain ID)
//
// A host reads only its own record and drain order; placers and
// operators read the whole bucket (addresses and counts, no secret). No
// member may change the bucket's settings, purge it or delete its
// messages. Clients have no NATS credentials: they ask a placer over HTTP
// (rate-limited per address) and dial the host with the connect token it
// minted. Every command that connects to NATS (rollnet-signal -nats,
// rollnet-host -fleet, rollnet-fleet -drain) takes the credentials (a
// creds file, an nkey seed, or a user and a password file) and TLS (the
// server's CA, a client certificate) as -nats-* flags.
//
// What each role can do, and what it cannot:
//
//   - A host's credentials write its own record: they can lie about that
//     host (its address, its capacity, rooms it claims to hold), which is
//     what running that host already allows. They cannot write another
//     host's record, a room key or a drain order: another host cannot be
//     drained and no room redirected with them. A room a host claims in
//     its record without its room key naming it gets no client: at most
//     that room's placement waits (OpTimeout) and goes elsewhere.
//   - A host drains only on SIGTERM, POST /drain on its own metrics
//     address, or a drain order written after it joined (an order left
//     from an earlier host under the same id does not drain the next).
//     It never drains because its record says Draining: placers write the
//     record too. It writes Draining there itself, for the placers.
//   - A placer holds the fleet's connect-token secret and so can already
//     send any client anywhere: it is trusted as the secret is. Still, a
//     placer follows a room key only to a live host whose own record holds
//     the room; a room key that names any other host is placed anew over
//     (PlacerStats.Stale), so a room key alone sends no client anywhere.
//   - An operator writes drain orders only.
//
// The layout changed in this version: before it, the drain order was the
// record's Draining (which placers could write) and hosts wrote and
// deleted room keys (which their permissions now refuse). Every record
// carries its layout; a placer places nothing on a host whose record is
// of another layout (logged once per host), so an older host gets no new
// match until it is upgraded, and is never told to drain by a key it
// cannot read. Placers go first in an upgrade: an older placer's writes
// drop the layout field from a record until its host's next beat.
//
// # Heartbeat and the bound on a silent host
//
// A host rewrites its record every Config.Tuning.Heartbeat (500 ms), adding 1 to
// Beat. A placer watches every record and notes, on its own clock, when
// each host's Beat last changed; a host whose Beat has not changed for
// Config.Tuning.DeadAfter (2 s; the test runs 100 ms and 500 ms, the process
// test 250 ms and 1.5 s) is gone: nothing is placed on it, and a room
// whose key names it is placed anew on the next request. So a host that
// stops (killed, cut off) is gone for every placer at most DeadAfter
// after the last beat it saw, which is at most DeadAfter + Heartbeat
// after the host went silent (plus a key-value write's delivery,
// milliseconds). No clock is compared across machines. A placer that
// starts, or watches again after a NATS reconnect, counts a record it
// has not seen change from the moment it sees it (a dead host's record
// can look live for one DeadAfter then). A host that leaves cleanly
// deletes its record at once.
//
// A record a host left behind (killed, cut off) is deleted by the placers:
// one that has seen no new beat for Config.Tuning.ForgetAfter (1 min) deletes it,
// and each room key that still names that host, over the revision it saw
// (compare-and-delete), so a host that beat again, or a room placed anew,
// keeps its key, and placers sweeping together delete each key once. A
// sweep owned by the placers and not a key-value TTL: room keys are
// written once per placement and live as long as their match, so a
// bucket-wide MaxAge would expire running rooms, and a per-key TTL would
// have to ride on every compare-and-set write by hosts and placers alike
// (a single write without it makes the key permanent again). The placer
// already knows, on its own clock, when each host last beat.
//
// # Placement: the compare-and-set rule
//
// Every write to a host's record is a compare-and-set on the key's
// revision, by the host (its beat) and by placers (a new match, a
// client more in a match) alike: a write made over a stale revision
// fails and is redone on the fresh record, so no write is lost and no two
// placers can both take a host's last slot. A placement:
//
//  1. reads room.<game>.<room>; if it names a live host whose record lists
//     the room, adds one client to that match (ErrRoomFull at the game's
//     clients per match) by compare-and-set, and answers (Reply.Joined);
//  2. otherwise orders the live, undrained hosts that run the game at the
//     request's version and have room (a match slot and a client's worth
//     of capacity) by the Policy, and adds the match to the first one's
//     record by compare-and-set (the next one on a lost round, re-read);
//  3. then creates the room key (or replaces a stale one over its
//     revision); if another placer created it first, it takes its match
//     back out of the host's record and joins the other's (step 1);
//  4. mints the client's connect token (room, a random client id, expiry
//     Config.Tuning.TokenTTL, the host's address) with the fleet's secret.
//
// A version mismatch never places (ErrVersion). NATS unreachable, or the
// mirror not current after a reconnect, refuses with ErrUnavailable
// (HTTP 503) instead of guessing; the hosts keep running their matches
// meanwhile (their clients' traffic never touches NATS). A placer lets
// one client address make Config.AddrRate placements a second (burst
// AddrBurst) and holds at most MaxInFlight at once (ErrBusy, 429); a
// request body is at most 1 KiB and a reply a few hundred bytes.
// The client address is the TCP peer's, unless that peer is one of
// PlacerConfig.TrustedProxies: then it is the address the proxies write
// in Forwarded (RFC 7239) or X-Forwarded-For, read right to left past
// trusted hops, as the signaling server reads it (what a client wrote
// itself, left of the proxy's entry, is never believed, and a header from
// anyone else is ignored). Without it, every client behind a proxy
// shares the proxy's bucket.
//
// # Policies
//
// Fill (the default) puts a new match on the fullest host with room (the
// largest share of its clients placed, then of its matches): fewer
// machines carry the load and idle ones can be scaled down. Spread puts it
// on the emptiest: the load is even, and one host's death ends fewer
// matches. Ties go to the smaller id, so every placer orders alike.
//
// # The host's side
//
// A host runs a match per room: the first client whose connect token
// names a room starts its match; the host counts its matches itself and
// refuses a client of a new match past its capacity (counted: placement
// never lets that happen, and the process test asserts 0), or while it
// drains. It refuses when the client's connection is admitted
// (quic.Config.Admit), with the reason: the client's Dial fails with
// quic.ErrRefused, netplay's with ErrHostUnreachable, and it asks the
// fleet again at once instead of waiting out its connect timeout. A match whose
// clients all left ends after -match-linger and leaves the record (the
// placers, seeing it leave, delete its room key if it still names that
// host; hosts write no room key); a client that comes meanwhile and resumes its slot keeps it,
// a fresh one starts the room's next match in its place (the entry and
// the room key stay, its clients counted afresh). An ended match whose
// entry placed more clients than came (a room's clients connect apart:
// the first can play to the end and leave before the second comes)
// stays, with the clients yet to come, as the placement of the room's
// next match. A beat whose write loses its compare-and-set reads the
// record again and does again what it carried (the ends, the expiries,
// the restarts). Two clients of a room
// asking at once for the fleet's last free match are both placed: the
// second waits for the first's room key and joins. A placed match no
// client reached within Config.Tuning.PlaceExpiry is dropped from the record. A
// running match the record lost (NATS lost its store) is put back in it
// by the host's next beat, but its room key is not: the room's next new
// client is placed in a new match (the players in it keep playing).
//
// Drain (SIGTERM, POST /drain on the host's -metrics address, or an
// operator's drain order under drain.<id>: Drain, rollnet-fleet -drain
// ID): the record says Draining at once (a beat is written then), placers stop placing there, the running matches go on
// (their players may still join them) until they end or -drain-deadline
// passes; then the host ends what is left (each client gets the
// authoritative mode's disconnect notice: netplay's Status.Ended is
// EndHostGone), deletes its record and exits 0. The players ask the fleet
// again (netplay.Connect with the same Config.Fleet), which places the room
// anew on a live host: that is where they are told to go next.
//
// # What a match loses when its host dies, and what keeping it would take
//
// The authoritative host is the only holder of the match's truth: the
// state, the inputs it has accepted, the frame. Clients hold only their
// predictions and the last host states they applied, which they cannot
// trust one another with. When the host process dies its players are told
// (netplay: Status.Interrupted naming the host after 750 ms of silence,
// then Status.Ended EndHostGone at the link's 5 s DisconnectTimeout) and
// can be placed elsewhere at once, but in a new match from frame 0: the
// state, the score and every input since the last state they saw are
// lost, and rejoin tokens name the dead host.
//
// Keeping the match would take a standby: a second host, placed by the
// fleet beside the primary (another machine, its record marked standby
// for the room), fed the primary's confirmed states and accepted inputs
// as they are made (the authoritative host already encodes each state
// with its CRC32-C for its clients; the feed is that stream plus the
// input log since, as a P2P spectator is fed, on an ordered, acknowledged
// channel). The standby steps nothing of its own; when the primary's
// heartbeat stops (the bound above), the placer moves the room key to
// the standby by compare-and-set, the standby takes over from the last
// frame it has confirmed, and the clients, told the host is gone, ask
// the fleet again and are sent to the standby with a token for the same
// room, resuming their slots with their rejoin tokens (which would then
// have to name the room, not the host). What is lost is only the frames
// after the last one the standby confirmed: with a feed every frame, a
// few frames. Its costs: a second machine's memory per match (no CPU but
// decoding), the feed's bandwidth (one client's worth of states), and the
// rejoin path across hosts, which does not exist yet.
package fleet
