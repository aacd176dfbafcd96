//go:build !js

package main

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/rollnet/rollnet/fleet"
	"github.com/rollnet/rollnet/signaling"
	"github.com/rollnet/rollnet/signaling/turn"
)

// serveMetrics serves the server's metrics (and the relay's, when rl is
// not nil), /healthz and /readyz on addr, and returns what stops it.
func serveMetrics(addr string, srv *signaling.Server, rl *turn.Relay, pl *fleet.Placer, log *slog.Logger) (func(), error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	var extra []prometheus.Collector
	if rl != nil {
		extra = append(extra, relayCollector{rl})
	}
	if pl != nil {
		extra = append(extra, pl.Collector())
	}
	mux.Handle("GET /metrics", srv.MetricsHandler(extra...))
	mux.Handle("GET /healthz", srv)
	mux.Handle("GET /readyz", srv)
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second, IdleTimeout: 30 * time.Second,
		MaxHeaderBytes: 8 << 10}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := hs.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			log.Warn("metrics server", "err", err)
		}
	}()
	log.Info("rollnet-signal metrics", "at", "http://"+ln.Addr().String()+"/metrics")
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		_ = hs.Shutdown(ctx)
		<-done
	}, nil
}

// relayCollector serves the embedded TURN relay's counters: what the
// matches that could not go peer to peer cost it. The relay cannot tell
// which allocations carry a match (every client allocates while ICE
// gathers, whatever pair it selects): each player's report names its
// selected pair.
//
//	rollnet_turn_allocations             live allocations (a relay socket each)
//	rollnet_turn_tcp_conns               open TURN-over-TCP connections
//	rollnet_turn_allocations_total       allocations made
//	rollnet_turn_refused_total{reason}   requests refused, by reason
type relayCollector struct{ r *turn.Relay }

var (
	descTURNAllocations = prometheus.NewDesc("rollnet_turn_allocations", "Live TURN allocations, each holding a relay socket.", nil, nil)
	descTURNTCP         = prometheus.NewDesc("rollnet_turn_tcp_conns", "Open TURN-over-TCP connections.", nil, nil)
	descTURNAllocated   = prometheus.NewDesc("rollnet_turn_allocations_total", "TURN allocations made.", nil, nil)
	descTURNRefused     = prometheus.NewDesc("rollnet_turn_refused_total", "TURN requests refused, by reason.", []string{"reason"}, nil)
)

func (c relayCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- descTURNAllocations
	ch <- descTURNTCP
	ch <- descTURNAllocated
	ch <- descTURNRefused
}

func (c relayCollector) Collect(ch chan<- prometheus.Metric) {
	st := c.r.Stats()
	ch <- prometheus.MustNewConstMetric(descTURNAllocations, prometheus.GaugeValue, float64(st.Allocations))
	ch <- prometheus.MustNewConstMetric(descTURNTCP, prometheus.GaugeValue, float64(st.TCPConns))
	ch <- prometheus.MustNewConstMetric(descTURNAllocated, prometheus.CounterValue, float64(st.Allocated))
	for _, r := range []struct {
		reason string
		n      uint64
	}{
		{"quota", st.QuotaRefused}, {"addr", st.AddrRefused}, {"cap", st.CapRefused},
		{"malformed", st.Malformed}, {"expired", st.Expired}, {"forged", st.Forged},
		{"peer", st.PeersRefused}, {"permissions", st.PermsRefused}, {"tcp_relay", st.TCPRefused},
		{"conns", st.ConnsRefused},
	} {
		ch <- prometheus.MustNewConstMetric(descTURNRefused, prometheus.CounterValue, float64(r.n), r.reason)
	}
}
