//go:build !js

package signaling

import (
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

var rejectReasonNames = [numRejectReasons]string{
	"bad_request", "token", "connections", "join_rate", "closing", "cluster_unavailable", "upgrade",
}

// MetricsHandler serves the server's metrics, and the Go runtime's and the
// process's, in the Prometheus text format (the command's -metrics):
//
//	rollnet_signal_clients                  connections holding a slot
//	rollnet_signal_rooms                    rooms with a client of this instance
//	rollnet_signal_sockets                  TCP connections open (Serve)
//	rollnet_signal_relayed_total            signals relayed to a client of this instance
//	rollnet_signal_relayed_bytes_total      their bytes
//	rollnet_signal_refused_total            signals refused: addressee not in the room
//	rollnet_signal_rejected_total{reason}   requests refused before the upgrade
//	rollnet_signal_closed_total{reason}     connections the server closed, by limit
//	rollnet_signal_accept_refused_total     TCP connections refused at accept
//	rollnet_signal_pairing_seconds          from a room's first join to its second
//	rollnet_signal_cluster_*                with NATS: instances alive, rooms in
//	                                        the bucket, ready, relays dropped
//
// Every value is read when scraped: serving requests costs nothing more.
// The extra collectors are served beside them (rollnet-signal adds its
// TURN relay's).
func (s *Server) MetricsHandler(extra ...prometheus.Collector) http.Handler {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		metricsCollector{s})
	reg.MustRegister(extra...)
	return promhttp.HandlerFor(reg, promhttp.HandlerOpts{})
}

type metricsCollector struct{ s *Server }

func desc(name, help string, labels ...string) *prometheus.Desc {
	return prometheus.NewDesc("rollnet_signal_"+name, help, labels, nil)
}

var (
	descClients       = desc("clients", "Connections holding a slot: upgrading, open or closing.")
	descRooms         = desc("rooms", "Rooms with at least one client of this instance.")
	descSockets       = desc("sockets", "TCP connections open, accepted by Serve.")
	descRelayed       = desc("relayed_total", "Signals relayed to a client of this instance.")
	descRelayedBytes  = desc("relayed_bytes_total", "Bytes of the signals relayed.")
	descRefused       = desc("refused_total", "Signals refused: the addressee was not in the sender's room.")
	descRejected      = desc("rejected_total", "Requests refused before the upgrade, by reason.", "reason")
	descClosed        = desc("closed_total", "Connections closed by the server for crossing a limit, by reason.", "reason")
	descAcceptRefused = desc("accept_refused_total", "TCP connections refused at accept (per-address or total cap).")
	descForwarded     = desc("forwarded_ignored_total", "Requests whose Forwarded/X-Forwarded-For came from a peer not trusted (a proxy not named?).")
	descPairing       = desc("pairing_seconds", "Time from a room's first join to its second.")
	descInstances     = desc("cluster_instances", "Instances this one hears, itself included.")
	descClusterRooms  = desc("cluster_rooms", "Rooms in the shared bucket, on every instance.")
	descClusterReady  = desc("cluster_ready", "1 when NATS is connected and the rooms are current.")
	descDropped       = desc("cluster_relays_dropped_total", "Relays from other instances dropped: addressee gone, or malformed.")
)

func (m metricsCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descClients, descRooms, descSockets, descRelayed, descRelayedBytes,
		descRefused, descRejected, descClosed, descAcceptRefused, descForwarded, descPairing} {
		ch <- d
	}
	if m.s.cluster != nil {
		ch <- descInstances
		ch <- descClusterRooms
		ch <- descClusterReady
		ch <- descDropped
	}
}

func (m metricsCollector) Collect(ch chan<- prometheus.Metric) {
	s := m.s
	st := s.Stats()
	gauge := func(d *prometheus.Desc, v float64, l ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, l...)
	}
	counter := func(d *prometheus.Desc, v uint64, l ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, float64(v), l...)
	}
	gauge(descClients, float64(st.Connections))
	gauge(descRooms, float64(st.Rooms))
	gauge(descSockets, float64(st.Sockets))
	counter(descRelayed, st.Relayed)
	counter(descRelayedBytes, s.stats.relayedBytes.Load())
	counter(descRefused, st.Refused)
	for i, name := range rejectReasonNames {
		counter(descRejected, s.stats.rejectedBy[i].Load(), name)
	}
	for _, c := range []struct {
		reason string
		v      uint64
	}{
		{"malformed", st.Malformed}, {"too_big", st.TooBig}, {"rate_limited", st.RateLimited},
		{"join_timeout", st.JoinTimeouts}, {"slow_consumer", st.SlowConsumers},
		{"ping_timeout", st.PingTimeouts}, {"room_full", st.RoomFull},
		{"cluster_unavailable", st.ClusterClosed},
	} {
		counter(descClosed, c.v, c.reason)
	}
	counter(descAcceptRefused, st.AcceptRefused)
	counter(descForwarded, st.ForwardedIgnored)
	h := &s.pairing
	buckets := make(map[float64]uint64, len(pairingBuckets))
	for i, ub := range pairingBuckets {
		buckets[ub] = h.buckets[i].Load()
	}
	ch <- prometheus.MustNewConstHistogram(descPairing, h.count.Load(),
		time.Duration(h.sumNs.Load()).Seconds(), buckets)
	if s.cluster != nil {
		instances, rooms, ready := s.cluster.stats()
		gauge(descInstances, float64(instances))
		gauge(descClusterRooms, float64(rooms))
		r := 0.0
		if ready {
			r = 1
		}
		gauge(descClusterReady, r)
		counter(descDropped, s.stats.clusterDropped.Load())
	}
}
