//go:build !js

package signaling

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet/signaling/client"
)

var clusterRaces = flag.Int("signal.races", 10,
	"times TestClusterRoomFullRace races two instances for a room's last place")

// TestClusterRoom: peers on different instances meet in a room, signal
// both ways, hear each other leave; a peer of another room, on a third
// instance, cannot reach them.
func TestClusterRoom(t *testing.T) {
	e := startNATS(t)
	in := e.instances(t, 3, ServerConfig{})
	a := in[0].dial("/room/lobby.1")
	b := in[1].dial("/room/lobby.1")
	require.Equal(t, []string{a.ID()}, b.Peers())
	require.Equal(t, "lobby.1", b.Room())
	ev := next(t, a)
	require.Equal(t, client.PeerJoined, ev.Kind)
	require.Equal(t, b.ID(), ev.Peer)

	send(t, a, b.ID(), offer("from-a"))
	ev = next(t, b)
	require.Equal(t, client.SignalReceived, ev.Kind)
	require.Equal(t, a.ID(), ev.Peer)
	require.JSONEq(t, `{"sdp":"from-a"}`, string(ev.Signal.Payload))
	send(t, b, a.ID(), client.Signal{Kind: client.SignalAnswer, Payload: []byte(`{"sdp":"<from-b>"}`)})
	ev = next(t, a)
	require.Equal(t, client.SignalReceived, ev.Kind)
	require.Equal(t, `{"sdp":"<from-b>"}`, string(ev.Signal.Payload), "relayed byte for byte")

	// Another room, on the third instance: a's id is unknown there.
	ws, _ := in[2].rawJoin("/room/other")
	rawWrite(t, ws, `{"v":1,"type":"signal","peer":"`+a.ID()+`","kind":"offer","payload":{}}`)
	er := rawRead(t, ws)
	require.Equal(t, typeError, er.Type)
	require.Equal(t, errCodeUnknownPeer, er.Code)
	// And a third member of lobby.1 on it meets both.
	c := in[2].dial("/room/lobby.1")
	require.Equal(t, []string{a.ID(), b.ID()}, c.Peers())
	require.Equal(t, client.PeerJoined, next(t, a).Kind)
	require.Equal(t, client.PeerJoined, next(t, b).Kind)

	require.NoError(t, b.Close())
	for _, cl := range []*client.Client{a, c} {
		ev = next(t, cl)
		require.Equal(t, client.PeerLeft, ev.Kind)
		require.Equal(t, b.ID(), ev.Peer)
	}
	require.Zero(t, in[0].srv.Stats().Refused)
	require.Equal(t, uint64(1), in[2].srv.Stats().Refused)
}

// TestClusterNext: next=2 pairs joiners on different instances, two by
// two, in the order they joined.
func TestClusterNext(t *testing.T) {
	e := startNATS(t)
	in := e.instances(t, 2, ServerConfig{})
	var cs []*client.Client
	for i := range 6 {
		cs = append(cs, in[i%2].dial("/room?next=2"))
	}
	for i := 0; i < len(cs); i += 2 {
		first, second := cs[i], cs[i+1]
		require.Empty(t, first.Peers())
		require.Equal(t, []string{first.ID()}, second.Peers())
		require.Equal(t, first.Room(), second.Room())
		ev := next(t, first)
		require.Equal(t, client.PeerJoined, ev.Kind)
		require.Equal(t, second.ID(), ev.Peer)
		send(t, second, first.ID(), offer("x"))
		require.Equal(t, client.SignalReceived, next(t, first).Kind)
	}
	require.NotEqual(t, cs[0].Room(), cs[2].Room())
}

// TestClusterRoomFullRace: two instances add the last member of a room at
// once; the compare-and-set lets exactly one in, every time.
func TestClusterRoomFullRace(t *testing.T) {
	e := startNATS(t)
	in := e.instances(t, 2, ServerConfig{MaxRoomSize: 3, Tuning: ServerTuning{JoinBurst: 1000, RoomJoinBurst: 1000}})
	for i := range *clusterRaces {
		room := "/room/race-" + string(rune('a'+i%26)) + "-" + newID()
		first := in[0].dial(room)
		second := in[1].dial(room)
		require.Len(t, second.Peers(), 1)
		var wg sync.WaitGroup
		errs := make([]error, 2)
		clients := make([]*client.Client, 2)
		for j := range 2 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				clients[j], errs[j] = in[j].tryDial(room)
			}()
		}
		wg.Wait()
		joined := 0
		for j, err := range errs {
			if err == nil {
				joined++
				require.Len(t, clients[j].Peers(), 2)
				continue
			}
			require.ErrorIs(t, err, client.ErrRoomFull, "race %d", i)
		}
		require.Equal(t, 1, joined, "race %d: exactly one joins the last place", i)
		for _, c := range append([]*client.Client{first, second}, clients...) {
			if c != nil {
				require.NoError(t, c.Close())
			}
		}
	}
}

// TestClusterInstanceDeath: an instance that stops answering (its NATS
// connection cut, its clients never told) is taken for dead within
// DeadAfter + Heartbeat: the peers of its clients hear peer-left, and its
// places in rooms are free again. The bound is checked with a second of
// slack for a loaded machine.
func TestClusterInstanceDeath(t *testing.T) {
	e := startNATS(t)
	in := e.instances(t, 2, ServerConfig{MaxRoomSize: 2})
	dying, nc := e.instance(t, ServerConfig{MaxRoomSize: 2})
	a := in[0].dial("/room/duel")
	b := dying.dial("/room/duel")
	require.Equal(t, client.PeerJoined, next(t, a).Kind)
	_, err := in[1].tryDial("/room/duel")
	require.ErrorIs(t, err, client.ErrRoomFull)

	nc.Close() // the instance is gone for the others; its clients stay open
	cut := time.Now()
	ev := next(t, a)
	took := time.Since(cut)
	require.Equal(t, client.PeerLeft, ev.Kind)
	require.Equal(t, b.ID(), ev.Peer)
	bound := testCluster.DeadAfter + testCluster.Heartbeat
	t.Logf("peer-left %v after the instance went silent (bound %v)", took.Round(time.Millisecond), bound)
	require.Less(t, took, bound+time.Second)
	require.GreaterOrEqual(t, took, testCluster.DeadAfter/2, "not long before it was silent for DeadAfter (its last heartbeat may be late)")

	c := in[1].dial("/room/duel") // the place is free
	require.Equal(t, []string{a.ID()}, c.Peers())
}

// TestClusterNATSRestart: NATS goes away: instances stop taking joins
// (HTTP 503 ErrClusterUnavailable at once, /readyz 503) rather than hang,
// and when it is back they reconnect and go on, rooms included.
func TestClusterNATSRestart(t *testing.T) {
	e := startNATS(t)
	in := e.instances(t, 2, ServerConfig{})
	a := in[0].dial("/room/kept")
	b := in[1].dial("/room/kept")
	require.Equal(t, client.PeerJoined, next(t, a).Kind)

	e.stop()
	for _, h := range in {
		eventually(t, func() bool { return !h.srv.ready() }, "instance still ready without NATS")
		_, err := h.tryDial("/room/during")
		require.ErrorIs(t, err, client.ErrClusterUnavailable)
	}
	e.start()
	for _, h := range in {
		eventually(t, h.srv.ready, "instance not ready after NATS came back")
	}
	// The pair from before still relays across instances.
	send(t, a, b.ID(), offer("after"))
	select {
	case ev := <-b.Events():
		require.Equal(t, client.SignalReceived, ev.Kind)
	case ev := <-a.Events():
		t.Fatalf("a: %+v %+v %+v", ev, in[0].srv.Stats(), in[1].srv.Stats())
	case <-time.After(3 * time.Second):
		t.Fatalf("nothing: %+v %+v", in[0].srv.Stats(), in[1].srv.Stats())
	}
	// New pairs form across instances, and the old room is still known.
	c := in[1].dial("/room/new")
	d := in[0].dial("/room/new")
	require.Equal(t, []string{c.ID()}, d.Peers())
	require.Equal(t, client.PeerJoined, next(t, c).Kind)
	send(t, c, d.ID(), offer("new"))
	require.Equal(t, client.SignalReceived, next(t, d).Kind)
	f := in[1].dial("/room/kept")
	require.Equal(t, []string{a.ID(), b.ID()}, f.Peers())
	require.NoError(t, b.Close())
	ev := next(t, a)
	for ev.Kind == client.PeerJoined {
		ev = next(t, a)
	}
	require.Equal(t, client.PeerLeft, ev.Kind)
}

// TestClusterShutdown: an instance that shuts down closes its clients with
// 1001 (going away, ErrServerClosing) and takes them out of their rooms,
// so peers on other instances hear peer-left at once, not after DeadAfter.
func TestClusterShutdown(t *testing.T) {
	e := startNATS(t)
	in := e.instances(t, 2, ServerConfig{})
	a := in[0].dial("/room/bye")
	b := in[1].dial("/room/bye")
	require.Equal(t, client.PeerJoined, next(t, a).Kind)
	begin := time.Now()
	require.NoError(t, in[1].srv.Close())
	require.ErrorIs(t, ended(t, b), client.ErrServerClosing)
	ev := next(t, a)
	require.Equal(t, client.PeerLeft, ev.Kind)
	require.Less(t, time.Since(begin), testCluster.DeadAfter/2, "told by the leave, not by the death")
}

// TestClusterUnavailableAtStart: NewServer with a NATS that has no
// JetStream fails with ErrClusterUnavailable instead of serving rooms it
// cannot share.
func TestClusterConfig(t *testing.T) {
	_, err := NewServer(ServerConfig{Cluster: ClusterConfig{Heartbeat: time.Second, DeadAfter: time.Second}, NATS: nil})
	require.NoError(t, err, "Cluster is ignored without NATS")
	_, err = ClusterConfig{Heartbeat: time.Second, DeadAfter: time.Second}.withDefaults()
	require.ErrorIs(t, err, client.ErrConfig)
	_, err = ClusterConfig{Name: "a.b"}.withDefaults()
	require.ErrorIs(t, err, client.ErrConfig)
	_ = context.Background
	_ = errors.New
}

// TestClusterRoomLostCounted: a client whose room no longer lists it in
// the bucket (rewritten behind the instance's back) is closed with 4006,
// and the close is counted (Stats.ClusterClosed, closed_total
// {reason="cluster_unavailable"}).
func TestClusterRoomLostCounted(t *testing.T) {
	e := startNATS(t)
	in := e.instances(t, 1, ServerConfig{})
	a := in[0].dial("/room/lost")
	js, err := jetstream.New(e.connect(t))
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	kv, err := js.KeyValue(ctx, defaultClusterName+"-rooms")
	require.NoError(t, err)
	b, err := json.Marshal(clusterRoom{Cap: 2, Since: 1, Members: []clusterMember{{ID: "0123456789abcdef", Inst: "elsewhere"}}})
	require.NoError(t, err)
	_, err = kv.Put(ctx, roomKey("lost"), b)
	require.NoError(t, err)
	require.ErrorIs(t, ended(t, a), client.ErrClusterUnavailable)
	require.EqualValues(t, 1, in[0].srv.Stats().ClusterClosed)
}

// TestClusterProtocolVersions: a client of version 1 and one of version 2
// on different instances learn each other's versions through the bucket,
// and a signal crossing instances reaches the old client in its version.
func TestClusterProtocolVersions(t *testing.T) {
	e := startNATS(t)
	in := e.instances(t, 2, ServerConfig{})
	old, oldJoin := in[0].rawJoin("/room/mixed")
	require.Equal(t, 1, oldJoin.V)
	c := in[1].dial("/room/mixed")
	require.Equal(t, 1, c.PeerProtocol(oldJoin.ID))
	require.Equal(t, `{"v":1,"type":"peer-joined","peer":"`+c.ID()+`"}`, rawReadBytes(t, old))
	send(t, c, oldJoin.ID, offer("across"))
	require.Equal(t, `{"v":1,"type":"signal","peer":"`+c.ID()+`","kind":"offer","payload":{"sdp":"across"}}`,
		rawReadBytes(t, old))
	rawWrite(t, old, `{"v":1,"type":"signal","peer":"`+c.ID()+`","kind":"answer","payload":{"sdp":"back"}}`)
	ev := next(t, c)
	require.Equal(t, client.SignalReceived, ev.Kind)
	require.Equal(t, `{"sdp":"back"}`, string(ev.Signal.Payload))
	d := in[0].dial("/room/mixed")
	require.Equal(t, []int{1, 2}, []int{d.PeerProtocol(oldJoin.ID), d.PeerProtocol(c.ID())})
	require.Equal(t, client.PeerJoined, next(t, c).Kind)
	require.Equal(t, 2, c.PeerProtocol(d.ID()))
}
