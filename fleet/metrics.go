//go:build !js

package fleet

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Collector is the placer's Prometheus metrics, to pass to
// signaling.Server.MetricsHandler:
//
//	rollnet_fleet_hosts{state}                 live, draining and gone hosts
//	rollnet_fleet_capacity_matches             matches the live hosts can hold
//	rollnet_fleet_matches_placed               matches placed on the live hosts
//	rollnet_fleet_clients_placed               clients placed on the live hosts
//	rollnet_fleet_placements_total             matches placed by this instance
//	rollnet_fleet_joins_total                  clients joined to placed matches
//	rollnet_fleet_refusals_total{reason}       placements refused
//	rollnet_fleet_cas_conflicts_total          compare-and-set rounds lost
func (p *Placer) Collector() prometheus.Collector { return placerCollector{p} }

type placerCollector struct{ p *Placer }

var (
	descHosts      = prometheus.NewDesc("rollnet_fleet_hosts", "Hosts in the fleet by state (live, draining, gone).", []string{"state"}, nil)
	descCapacity   = prometheus.NewDesc("rollnet_fleet_capacity_matches", "Matches the live hosts can hold.", nil, nil)
	descPlaced     = prometheus.NewDesc("rollnet_fleet_matches_placed", "Matches placed on the live hosts.", nil, nil)
	descClients    = prometheus.NewDesc("rollnet_fleet_clients_placed", "Clients placed on the live hosts.", nil, nil)
	descPlacements = prometheus.NewDesc("rollnet_fleet_placements_total", "Matches placed by this instance.", nil, nil)
	descJoins      = prometheus.NewDesc("rollnet_fleet_joins_total", "Clients joined to matches already placed.", nil, nil)
	descRefusals   = prometheus.NewDesc("rollnet_fleet_refusals_total", "Placements refused, by reason.", []string{"reason"}, nil)
	descConflicts  = prometheus.NewDesc("rollnet_fleet_cas_conflicts_total", "Compare-and-set rounds lost and retried.", nil, nil)
)

func (c placerCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descHosts, descCapacity, descPlaced, descClients, descPlacements, descJoins, descRefusals, descConflicts} {
		ch <- d
	}
}

func (c placerCollector) Collect(ch chan<- prometheus.Metric) {
	p := c.p
	now := time.Now()
	var live, draining, gone, capMatches, placed, clients int
	p.mu.Lock()
	for _, m := range p.hosts {
		switch {
		case !p.live(m, now):
			gone++
			continue
		case m.rec.Draining:
			draining++
		default:
			live++
		}
		capMatches += m.rec.Capacity.Matches
		placed += len(m.rec.Matches)
		clients += m.rec.used()
	}
	p.mu.Unlock()
	g := func(d *prometheus.Desc, v int, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, float64(v), labels...)
	}
	g(descHosts, live, "live")
	g(descHosts, draining, "draining")
	g(descHosts, gone, "gone")
	g(descCapacity, capMatches)
	g(descPlaced, placed)
	g(descClients, clients)
	ctr := func(d *prometheus.Desc, v uint64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, float64(v), labels...)
	}
	ctr(descPlacements, p.placements.Load())
	ctr(descJoins, p.joins.Load())
	for i := range p.refused {
		ctr(descRefusals, p.refused[i].Load(), reasonNames[i])
	}
	ctr(descConflicts, p.cas.Load())
}
