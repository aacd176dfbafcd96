//go:build !js

package fleet_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	natsserver "github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet/fleet"
	"github.com/rollnet/rollnet/internal/fleethost"
	"github.com/rollnet/rollnet/internal/natsauth"
	"github.com/rollnet/rollnet/signaling"
)

// fleetNATS is an embedded nats-server run with nats-fleet.conf, the
// permissions the package documentation states, and its users' password
// files.
type fleetNATS struct {
	url string
	pw  map[string]string // user: password file
}

func startFleetNATS(t *testing.T) fleetNATS {
	t.Helper()
	dir := t.TempDir()
	f := fleetNATS{pw: map[string]string{}}
	for _, u := range []string{"host-h1", "host-h2", "placer", "operator"} {
		pw := "pw-" + u + "-" + t.Name()
		env := "ROLLNET_FLEET_" + strings.ToUpper(strings.ReplaceAll(u, "-", "_")) + "_PASSWORD"
		t.Setenv(env, pw)
		f.pw[u] = filepath.Join(dir, u)
		require.NoError(t, os.WriteFile(f.pw[u], []byte(pw+"\n"), 0o600))
	}
	opts, err := natsserver.ProcessConfigFile("nats-fleet.conf")
	require.NoError(t, err)
	opts.Host, opts.Port, opts.StoreDir, opts.NoLog, opts.NoSigs = "127.0.0.1", -1, filepath.Join(dir, "js"), true, true
	ns, err := natsserver.NewServer(opts)
	require.NoError(t, err)
	ns.Start()
	t.Cleanup(func() { ns.Shutdown(); ns.WaitForShutdown() })
	require.True(t, ns.ReadyForConnections(10*time.Second))
	f.url = "nats://" + ns.Addr().String()
	return f
}

// as connects as user, with the flags the commands take.
func (f fleetNATS) as(t *testing.T, user string) *nats.Conn {
	t.Helper()
	nc, err := natsauth.Flags{User: user, PasswordFile: f.pw[user]}.Connect(f.url, t.Name()+" "+user)
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	return nc
}

// denied is how long a write the server refuses is waited for: a
// publish it refuses is never acknowledged.
const denied = time.Second

// refused asserts write fails (the server refuses the publish).
func refused(t *testing.T, what string, write func(ctx context.Context) error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), denied)
	defer cancel()
	require.Error(t, write(ctx), "%s was allowed", what)
}

// TestBucketPermissions runs the fleet against a NATS server with exactly
// the permissions of nats-fleet.conf: honest hosts, a placer (with the
// signaling cluster beside it) and an operator do their work; the
// attacks of issue 40 fail: a host's credentials cannot mark another
// host draining, order its drain, or write a room key; a placer's
// writing Draining into a host's record does not drain it; a client
// (no credentials) is not let in.
func TestBucketPermissions(t *testing.T) {
	f := startFleetNATS(t)
	_, err := nats.Connect(f.url)
	require.Error(t, err, "a connection without credentials (a client's) is let in")

	placerNC := f.as(t, "placer")
	// On a clock that stays still: the hosts stay live however late a
	// loaded machine delivers their beats.
	p, err := fleet.NewPlacerAt(placerNC, fleet.PlacerConfig{Config: testConfig, Secret: testSecret, AddrRate: 1000, AddrBurst: 1000}, newClock().Now)
	require.NoError(t, err, "the placer creates the bucket and watches it")
	t.Cleanup(func() { _ = p.Close() })
	srv, err := signaling.NewServer(signaling.ServerConfig{NATS: placerNC})
	require.NoError(t, err, "the signaling cluster on the placer's credentials")
	t.Cleanup(func() { _ = srv.Close() })

	hosts := map[string]*fleethost.Member{}
	for i, id := range []string{"h1", "h2"} {
		m, err := fleethost.Join(f.as(t, "host-"+id), fleethost.HostInfo{ID: id, Version: "1", Games: []fleet.Game{{Name: "court", Clients: 2}},
			QUIC: "127.0.0.1:" + string(rune('1'+i)) + "000", Capacity: fleet.Capacity{Matches: 4, Clients: 8}}, testConfig, nil)
		require.NoError(t, err, "host %s joins with its own credentials", id)
		t.Cleanup(func() { _ = m.Close() })
		hosts[id] = m
	}
	waitHosts(t, p, 2)

	r, err := p.Place(context.Background(), fleet.Request{Game: "court", Room: "r1", Version: "1"})
	require.NoError(t, err, "an honest placement")
	victim := map[string]string{"h1": "h2", "h2": "h1"}[r.Host] // the host r1 is not on
	attacker := victim
	victim = r.Host

	ctx := context.Background()
	hostKV := bucket(t, f.as(t, "host-"+attacker))
	placerKV := bucket(t, placerNC)
	room, err := placerKV.Get(ctx, "room.court.r1")
	require.NoError(t, err)
	refused(t, "a host reading another key than its record and drain order", func(ctx context.Context) error { _, err := hostKV.Get(ctx, "room.court.r1"); return err })
	rec, rev := hostRecord(t, placerKV, victim)
	rec.Draining = true
	b, _ := json.Marshal(rec)
	refused(t, "a host marking another's record draining", func(ctx context.Context) error { _, err := hostKV.Update(ctx, "host."+victim, b, rev); return err })
	refused(t, "a host ordering another's drain", func(ctx context.Context) error { _, err := hostKV.Put(ctx, "drain."+victim, []byte(`{}`)); return err })
	redirect, _ := json.Marshal(map[string]string{"host": attacker})
	refused(t, "a host rewriting a room key", func(ctx context.Context) error { _, err := hostKV.Put(ctx, "room.court.r1", redirect); return err })
	refused(t, "a host deleting a room key", func(ctx context.Context) error { return hostKV.Delete(ctx, "room.court.r1") })
	refused(t, "a host creating a room key", func(ctx context.Context) error { _, err := hostKV.Create(ctx, "room.court.r9", redirect); return err })
	refused(t, "a host purging the bucket", func(ctx context.Context) error {
		js, err := jetstream.New(f.as(t, "host-"+attacker))
		require.NoError(t, err)
		s, err := js.Stream(ctx, "KV_rollnet-fleet")
		if err != nil {
			return err
		}
		return s.Purge(ctx)
	})
	short := testConfig
	short.Tuning.OpTimeout = denied
	require.ErrorIs(t, fleet.Drain(ctx, f.as(t, "host-"+attacker), short, victim), nats.ErrPermissionViolation, "a host's fleet.Drain of another")
	after, err := placerKV.Get(ctx, "room.court.r1")
	require.NoError(t, err)
	require.Equal(t, room.Revision(), after.Revision(), "the room key was written")

	// A placer may write host records (it adds matches), so a Draining
	// it writes there is not obeyed: only the operator's key drains.
	beat := hosts[victim].Stats().Beats
	for {
		rec, rev = hostRecord(t, placerKV, victim)
		rec.Draining = true
		b, _ = json.Marshal(rec)
		if _, err := placerKV.Update(ctx, "host."+victim, b, rev); err == nil {
			break
		}
	}
	waitBeats(t, hosts[victim], beat+3)
	require.False(t, hosts[victim].Draining(), "a host drained on its record's Draining, which placers may write")
	rec, _ = hostRecord(t, placerKV, victim)
	require.False(t, rec.Draining, "the host's next beat says it does not drain")
	refused(t, "a placer ordering a drain", func(ctx context.Context) error {
		_, err := placerKV.Put(ctx, "drain."+victim, []byte(`{}`))
		return err
	})

	// The operator drains, and may write nothing else.
	opNC := f.as(t, "operator")
	opKV := bucket(t, opNC)
	refused(t, "an operator rewriting a room key", func(ctx context.Context) error { _, err := opKV.Put(ctx, "room.court.r1", redirect); return err })
	refused(t, "an operator writing a host record", func(ctx context.Context) error { _, err := opKV.Update(ctx, "host."+victim, b, rev); return err })
	require.NoError(t, fleet.Drain(ctx, opNC, testConfig, victim))
	deadline := time.Now().Add(eventBound)
	for !hosts[victim].Draining() || hostState(p, victim) != "draining" {
		require.True(t, time.Now().Before(deadline), "the operator's drain order is not taken")
		time.Sleep(5 * time.Millisecond)
	}
	r2, err := p.Place(ctx, fleet.Request{Game: "court", Room: "r2", Version: "1"})
	require.NoError(t, err)
	require.Equal(t, attacker, r2.Host, "nothing new on the drained host")

	// The honest end of a match: out of the host's record, and the placer
	// deletes its room key.
	hosts[attacker].Ended("court", "r2", 1)
	for {
		_, err := placerKV.Get(ctx, "room.court.r2")
		if err != nil {
			require.ErrorIs(t, err, jetstream.ErrKeyNotFound)
			break
		}
		require.True(t, time.Now().Before(deadline), "the ended room's key is not deleted")
		time.Sleep(5 * time.Millisecond)
	}
	for id, m := range hosts {
		require.Zero(t, m.Stats().BeatFailures, "host %s's beats under its permissions", id)
	}
}

// hostState is host id's state in p's view ("" if it is not there).
func hostState(p *fleet.Placer, id string) string {
	for _, h := range p.View().Hosts {
		if h.ID == id {
			return h.State
		}
	}
	return ""
}
