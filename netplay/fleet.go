//go:build !js

package netplay

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/fleet"
	"github.com/rollnet/rollnet/internal/fleetkv"
	"github.com/rollnet/rollnet/internal/signalurl"
	"github.com/rollnet/rollnet/transport"
	"github.com/rollnet/rollnet/transport/quic"
	"github.com/rollnet/rollnet/transport/quic/connecttoken"
)

// maxReply bounds the bytes of a placement reply read.
const maxReply = 4 << 10

// Place asks the fleet behind the signaling server at signal (ws://,
// wss://, http:// or https://HOST:PORT) for a match of req and returns
// where to go: the host's QUIC address, its certificate's hash and this
// client's connect token. A refusal wraps the fleet's sentinel
// (fleet.ErrUnavailable while NATS is down, fleet.ErrNoHost,
// fleet.ErrVersion, fleet.ErrRoomFull, fleet.ErrBusy).
func Place(ctx context.Context, signal string, req fleet.Request) (fleet.Reply, error) {
	if err := req.Validate(); err != nil {
		return fleet.Reply{}, err
	}
	u, err := placeURL(signal)
	if err != nil {
		return fleet.Reply{}, err
	}
	body, _ := json.Marshal(req)
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, u, bytes.NewReader(body))
	if err != nil {
		return fleet.Reply{}, fmt.Errorf("%w: %v", errConfig, err)
	}
	hr.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(hr)
	if err != nil {
		return fleet.Reply{}, fmt.Errorf("netplay: asking %s for a match: %w", signalurl.Redact(u), err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(io.LimitReader(res.Body, maxReply+1))
	if err != nil {
		return fleet.Reply{}, fmt.Errorf("netplay: reading the placement: %w", err)
	}
	if len(b) > maxReply {
		return fleet.Reply{}, fmt.Errorf("netplay: a placement reply over %d bytes", maxReply)
	}
	var rep fleet.Reply
	if err := json.Unmarshal(b, &rep); err != nil {
		return fleet.Reply{}, fmt.Errorf("netplay: placement reply (HTTP %d): %w", res.StatusCode, err)
	}
	if res.StatusCode != http.StatusOK || rep.Error != "" {
		return fleet.Reply{}, fleetkv.ErrorOf(res.StatusCode, rep.Error)
	}
	if rep.QUIC == "" || rep.Grant == "" {
		return fleet.Reply{}, errors.New("netplay: a placement without an address or a token")
	}
	return rep, nil
}

// placeURL is the placement endpoint on the server at signal.
func placeURL(signal string) (string, error) {
	u, err := url.Parse(signal)
	if err != nil || u.Host == "" {
		return "", fmt.Errorf("%w: Signal wants ws://HOST:PORT or http://HOST:PORT, got %q", errConfig, signalurl.Redact(signal))
	}
	switch u.Scheme {
	case "ws", "http":
		u.Scheme = "http"
	case "wss", "https":
		u.Scheme = "https"
	default:
		return "", fmt.Errorf("%w: Signal wants ws://HOST:PORT or http://HOST:PORT, got %q", errConfig, signalurl.Redact(signal))
	}
	u.Path = strings.TrimRight(u.Path, "/")
	if i := strings.Index(u.Path, "/room"); i >= 0 {
		u.Path = u.Path[:i]
	}
	u.Path += fleet.PlacePath
	u.RawQuery = ""
	return u.String(), nil
}

// connectFleet is Connect with Config.Fleet: it asks for the placement
// and dials the host over QUIC in the background (Status.Phase Connecting
// until then; a refused placement is the error of AdvanceFrame, wrapping
// the fleet's sentinel). Then it is Connect's match. cfg.Room is
// cfg.Fleet.Room.
func connectFleet[S any, I comparable](k kind[S, I], cfg Config, simulate func(s *S, inputs []I, frame rollnet.Frame)) (*Match[S, I], error) {
	req := *cfg.Fleet
	if err := req.Validate(); err != nil {
		return nil, err
	}
	if cfg.Transport != nil || cfg.Rooms != nil {
		return nil, fmt.Errorf("%w: Config.Fleet dials its own transport: no Rooms or Transport", errConfig)
	}
	if _, err := placeURL(cfg.Signal); err != nil {
		return nil, err
	}
	if u, err := url.Parse(cfg.Signal); err == nil && (u.Scheme == "http" || u.Scheme == "https") {
		u.Scheme = strings.Replace(u.Scheme, "http", "ws", 1)
		cfg.Signal = u.String()
	}
	cfg.Room = req.Room
	return startWith(k, cfg, simulate, func(ctx context.Context, cfg *Config, _ func(transport.Peer) bool) dialed {
		return dialFleet(ctx, cfg, req)
	})
}

// dialFleet asks for the placement and dials the host it names.
func dialFleet(ctx context.Context, cfg *Config, req fleet.Request) dialed {
	rep, err := Place(ctx, cfg.Signal, req)
	if err != nil {
		return dialed{err: err}
	}
	g, err := connecttoken.ParseGrant(rep.Grant)
	if err != nil {
		return dialed{err: fmt.Errorf("netplay: the placement's grant: %w", err)}
	}
	qc := quic.Config{Grant: &g}
	if rep.SHA256 != "" {
		if qc.PinSHA256, err = quic.ParseHash(rep.SHA256); err != nil {
			return dialed{err: fmt.Errorf("netplay: the placement's certificate hash: %w", err)}
		}
	}
	host, tr, err := dialHost(ctx, cfg, quic.Dialer{Addr: rep.QUIC, Config: qc}, "host "+rep.Host+" at "+rep.QUIC)
	if err != nil {
		return dialed{err: err}
	}
	return dialed{tr: tr, name: rep.Room, placed: &placement{Reply: rep, peer: host}}
}
