package authority

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/transport/local"
)

type withBool struct {
	Fire bool
	_    [1]byte
}

type withPointer struct{ P *int32 }

// Bad arguments are rollnet.ErrConfig, naming what is wrong.
func TestConfigErrors(t *testing.T) {
	n, err := local.NewNetwork(local.Config{})
	require.NoError(t, err)
	ep, err := n.Endpoint("x")
	require.NoError(t, err)
	for _, cfg := range []HostConfig[uint16]{
		{Players: 0}, {Players: 257}, {Players: 65, LateInput: LateRollback}, {Players: 2, LocalPlayers: 3}, {Players: 2, SlotsPerClient: 3}, {Players: 100, SlotsPerClient: 65},
		{Players: 2, InputAhead: 65}, {Players: 2, TargetDepth: 40}, {Players: 2, MaxRate: 600},
		{Players: 2, StateInterval: 33}, {Players: 2, RollbackWindow: 33}, {Players: 2, LateInput: 7},
		{Players: 2, Grace: -time.Second}, {Players: 2, Net: rollnet.NetConfig{FrameRate: 5000}},
		{Players: 2, JoinTimeout: -time.Second}, {Players: 2, ClientBudget: -1}, {Players: 2, MaxClientsPerAddress: -1},
	} {
		_, err := NewHost[world, uint16](cfg, ep, simWorld)
		require.ErrorIs(t, err, errConfig, "%+v", cfg)
	}
	_, err = NewHost[world, withBool](HostConfig[withBool]{Players: 1}, ep, func(*world, []withBool, rollnet.Frame) {})
	require.ErrorIs(t, err, errConfig)
	require.ErrorContains(t, err, "bool")
	_, err = NewHost[withPointer, uint16](HostConfig[uint16]{Players: 1}, ep, func(*withPointer, []uint16, rollnet.Frame) {}) //rollnet:ok the state type is refused on purpose
	require.ErrorIs(t, err, errConfig)
	_, err = NewHost[bigWorld, uint16](HostConfig[uint16]{Players: 1}, nil, simBig)
	require.ErrorIs(t, err, errConfig)
	for _, cfg := range []ClientConfig{
		{Players: 2}, {Host: "h", Players: 0}, {Host: "h", Players: 2, Capacity: 100},
		{Host: "h", Players: 2, MaxSend: 129}, {Host: "h", Players: 2, NackAfter: -1},
		{Host: "h", Players: 2, Playout: PlayoutConfig{MaxScale: 0.9}},
	} {
		_, err := NewClient[world, uint16](cfg, ep, simWorld)
		require.ErrorIs(t, err, errConfig, "%+v", cfg)
	}
	cl, err := NewClient[world, uint16](ClientConfig{Host: "h", Players: 2}, ep, simWorld)
	require.NoError(t, err)
	require.ErrorIs(t, cl.AddLocalInput(0, 1), ErrNotReady)
	require.ErrorIs(t, cl.Rejoin(nil), errConfig)
	require.NoError(t, cl.Close())
	require.ErrorIs(t, cl.AdvanceFrame(), errClosed)
}

// A client that leaves (Close sends a notice) is away at once, its slot
// free after the grace window, and a newcomer gets it.
func TestLeaveAndJoin(t *testing.T) {
	net := rollnet.NetConfig{DisconnectTimeout: time.Second, DisconnectNotify: 500 * time.Millisecond}
	c := newCluster(t, clusterOpts{seed: 71, players: 1, link: local.Link{Latency: 20 * time.Millisecond},
		host: HostConfig[uint16]{Grace: 2 * time.Second, Net: net}})
	a := c.add("a", ClientConfig{Net: net}, mash(1, 3))
	c.run(2 * time.Second)
	require.NoError(t, a.c.Close())
	a.cut = true
	c.run(time.Second)
	require.True(t, c.h.Clients(nil)[0].Away)
	late := c.add("late", ClientConfig{Net: net}, mash(2, 3))
	c.run(time.Second)
	require.False(t, late.c.Synchronized(), "the slot is still held for a resume")
	c.run(3 * time.Second)
	require.True(t, late.c.Synchronized(), "its Hello retried, the slot freed, it joined")
	require.Equal(t, uint64(1), c.h.Stats().Expired)
	require.Equal(t, 0, late.c.Stats().First)
}
